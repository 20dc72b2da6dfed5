"""EQ-Bench 3's tasks: the scenarios file parsed as upstream parses it, and each scenario's kind.

Reproduces ``parse_scenario_prompts`` of ``core/benchmark.py`` and the id sets of ``utils/constants.py`` at
EQ-bench/eqbench3 ``3c21bcc`` (the same rules at ``8c3a125``), decision for decision:

- A line that, stripped, matches ``^########\\s*(\\S+)`` starts a scenario (the id is the first word after the
  eight hashes: ``######## 1   | Work Dilemma | ...`` is scenario ``1``); one matching ``^#######\\s*Prompt(\\d+)``
  starts its next prompt (turn). Lines are read only between a prompt delimiter and the next delimiter; each
  prompt is its lines (trailing line breaks removed, indentation kept) joined and stripped; an empty prompt is
  dropped. A scenario is stored only when it has at least one prompt, and a later scenario with the same id
  replaces an earlier one (a dict).
- **The silently dropped header.** At ``3c21bcc`` the file has 46 scenario headers, but scenario 409's only
  prompt is introduced by ``####### 1`` instead of ``####### Prompt1``: no line of it is read, 409 has no prompt
  and is dropped without a word. Upstream runs 45 scenarios. (At ``8c3a125`` the file had 47 headers: 409 was
  dropped the same way and 145 appeared twice, the second replacing the first.) :func:`parse_scenarios` keeps
  what upstream keeps and lists what it dropped, so it can be said.
- Kinds (``utils/constants.py``): ids 401–420 are **analysis** tasks (one prompt, the analysis master prompt, no
  debrief), 201–209 **message drafting** (its own master prompt and sections), 8, 10, 12, 14 **no role-play**
  (the prompt sent as it is; none of these ids is in the file), every other id a **role-play** (the three-section
  master prompt). Of the 45: 25 role-plays (mediation 101–145 among them), 1 message drafting (208), 19 analysis.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from . import files

SCENARIO_FILE = "scenario_prompts.txt"
NOTES_FILE = "scenario_notes.txt"

#: ``utils/constants.py`` at 3c21bcc.
NO_RP_SCENARIO_IDS = frozenset({"8", "10", "12", "14"})
MESSAGE_DRAFTING_SCENARIO_IDS = frozenset(str(i) for i in range(201, 210))
ANALYSIS_SCENARIO_IDS = frozenset(str(i) for i in range(401, 421))

ROLEPLAY, DRAFTING, ANALYSIS, NO_RP = "roleplay", "drafting", "analysis", "no_rp"
KINDS = (ROLEPLAY, DRAFTING, ANALYSIS, NO_RP)

_SCENARIO = re.compile(r"^########\s*(\S+)")
_PROMPT = re.compile(r"^#######\s*Prompt(\d+)")


def kind_of(scenario_id: str) -> str:
    """A scenario's kind by upstream's id sets (analysis before drafting before no-role-play)."""
    if scenario_id in ANALYSIS_SCENARIO_IDS:
        return ANALYSIS
    if scenario_id in MESSAGE_DRAFTING_SCENARIO_IDS:
        return DRAFTING
    if scenario_id in NO_RP_SCENARIO_IDS:
        return NO_RP
    return ROLEPLAY


@dataclass(frozen=True)
class Scenario:
    """One task: its id, its prompts (turns) in order, and the header's category and title (display only)."""

    id: str
    prompts: tuple[str, ...]
    category: str = ""
    title: str = ""

    @property
    def kind(self) -> str:
        return kind_of(self.id)

    @property
    def has_debrief(self) -> bool:
        """Upstream debriefs every task but the analysis ones."""
        return self.kind != ANALYSIS

    @property
    def description(self) -> str:
        """The first prompt: what the pairwise judge is shown as the scenario (``scenarios_data[sid][0]``)."""
        return self.prompts[0]


@dataclass(frozen=True)
class ParsedScenarios:
    """The scenarios upstream keeps, in file order, and the headers it drops or replaces without a word."""

    scenarios: dict[str, Scenario]
    headers: int  # scenario header lines in the file
    dropped: tuple[str, ...]  # ids of headers left with no prompt (scenario 409 at 3c21bcc)
    replaced: tuple[str, ...]  # ids that appeared again, the later replacing the earlier

    def counts(self) -> dict[str, int]:
        """Scenarios per kind."""
        out = dict.fromkeys(KINDS, 0)
        for s in self.scenarios.values():
            out[s.kind] += 1
        return out


def _file_lines(text: str) -> list[str]:
    """The lines as Python's text mode iterates them (universal newlines), each without its line break."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _header_parts(line: str) -> tuple[str, str]:
    parts = [p.strip() for p in line.split("|")]
    return (parts[1] if len(parts) > 1 else "", parts[2] if len(parts) > 2 else "")


def parse_scenarios(text: str) -> ParsedScenarios:
    """Parse the scenarios file's text exactly as upstream's ``parse_scenario_prompts`` (module docstring)."""
    scenarios: dict[str, Scenario] = {}
    headers = 0
    dropped: list[str] = []
    replaced: list[str] = []
    current: str | None = None
    header_line = ""
    prompts: list[str] = []
    lines: list[str] = []
    reading = False

    def finish_prompt() -> None:
        if lines:
            prompt = "\n".join(lines).strip()
            if prompt:
                prompts.append(prompt)

    def finish_scenario() -> None:
        if current is None:
            return
        if not prompts:
            dropped.append(current)
            return
        if current in scenarios:
            replaced.append(current)  # the later one stands, at the earlier one's place (a dict)
        category, title = _header_parts(header_line)
        scenarios[current] = Scenario(current, tuple(prompts), category, title)

    for raw in _file_lines(text):
        line = raw.strip()
        scenario = _SCENARIO.match(line)
        if scenario:
            finish_prompt()
            finish_scenario()
            headers += 1
            current, header_line = scenario.group(1), line
            prompts, lines, reading = [], [], False
            continue
        if _PROMPT.match(line):
            if current is None:
                continue
            finish_prompt()
            lines, reading = [], True
            continue
        if current is not None and reading:
            lines.append(raw)
    finish_prompt()
    finish_scenario()
    return ParsedScenarios(scenarios, headers, tuple(dropped), tuple(replaced))


def load_parsed(path: str | os.PathLike | None = None) -> ParsedScenarios:
    """The pinned scenarios file (``3c21bcc``), checked and parsed."""
    return parse_scenarios(files.read_text(SCENARIO_FILE, path))


def load_scenarios(path: str | os.PathLike | None = None) -> list[Scenario]:
    """The 45 scenarios upstream runs, in file order."""
    return list(load_parsed(path).scenarios.values())


def parse_notes(text: str) -> dict[str, str]:
    """``scenario_notes.txt`` as upstream's ``load_scenario_notes`` reads it: a line starting ``# `` names the next
    scenario (the line stripped of ``#``, spaces and line breaks at both ends), the lines until the next such line
    are its notes (stripped); a scenario with no lines gets no entry."""
    notes: dict[str, str] = {}
    current: str | None = None
    body: list[str] = []
    for raw in _file_lines(text):
        if raw.startswith("# "):
            if current is not None and body:
                notes[current] = "\n".join(body).strip()
                body = []
            current = raw.strip("# \n")
        elif current is not None:
            body.append(raw)
    if current is not None and body:
        notes[current] = "\n".join(body).strip()
    return notes


def load_notes(path: str | os.PathLike | None = None) -> dict[str, str]:
    return parse_notes(files.read_text(NOTES_FILE, path))
