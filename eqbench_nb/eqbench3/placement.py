"""Placing a model among others with pairwise judgements: upstream's matchup selection, round by round.

Reproduces the sampling loop of ``run_elo_analysis_eqbench3`` (``core/elo.py``), ``_pick_matchups`` and
``_evenly_spaced`` (``core/matchup_selection.py``) and the choice of scenarios in ``_judge_scenario_pairs_in_parallel``
(``core/pairwise_judging.py``) of EQ-bench/eqbench3 at ``3c21bcc`` and ``8c3a125``:

- The **ladder** is every rated model by its current rating (a model without one at 1200), lowest first.
- **Stage 1** picks up to 10 anchors spread over the whole ladder (a step of ``ceil(len / 10)`` from a centre
  jittered by ``Random(42)``), one logical pair each; it runs once.
- **Later stages** pick the neighbours 1, 2 and 3 places away (evenly spaced within each tier: ``samples``,
  ``samples // 2``, ``samples // 4`` of them), with ``samples``, ``samples // 2`` or ``samples // 4`` logical pairs
  per opponent by distance (at least 1); each stage repeats, re-solving after every round, until the model keeps
  its place on the ladder (at most 4 rounds). HEAD's stages: 4, 8, 16, 24, then 9,999 (every scenario and
  iteration); ``8c3a125``'s: 8, then 45.
- **Which pairs.** For an opponent, the scenarios and iterations both models have finished (sorted as text), less
  those already judged (an earlier judgement that errored does not count as judged, so it is asked again); when more
  are left than the cap (less the pairs already judged for these two models), an evenly spaced sample of them,
  scenario 404 first. Each logical pair is judged in both orders.
- **Re-solve** after each round: the valid comparisons (within the version's rank window on the current ladder,
  after stage 1), TrueSkill with up to 20 pseudo-wins per comparison, starting at 1200 (HEAD) or at the ladder's
  ratings (``8c3a125``); the model's place on the new ladder decides whether the stage is done.

:class:`Placement` plans each round and is told the comparisons it produced; the caller asks the judge (through the
runner, each judgement written as it arrives).
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .rating import DEFAULT_ELO, is_valid, pair_comparisons, solve, within_window
from .versions import ScoringVersion

#: (radius tiers, samples) per stage; ``(None,)`` is stage 1's anchors. ``core/elo_config.py``.
SCHEDULES: dict[str, tuple[tuple[tuple[int | None, ...], int], ...]] = {
    "3c21bcc": (((None,), 10), ((1, 2, 3), 4), ((1, 2, 3), 8), ((1, 2, 3), 16), ((1, 2, 3), 24), ((1, 2, 3), 9999)),
    "8c3a125": (((None,), 10), ((1, 2, 3), 8), ((1, 2, 3), 45)),
}
MAX_STAGE_LOOPS = 4
LOOP_BIN_SIZE = 20
ANCHOR_SEED = 42
PRIORITY_SCENARIO = "404"

Signature = tuple[str, str, str, str]  # (model a, model b sorted, scenario, iteration)


def signature(a: str, b: str, scenario_id: str, iteration: str) -> Signature:
    lo, hi = sorted([a, b])
    return (lo, hi, scenario_id, str(iteration))


def judged(comparisons: Iterable[Mapping[str, Any]]) -> set[Signature]:
    """``build_existing_matchup_set``: the logical pairs with at least one non-error judgement."""
    out: set[Signature] = set()
    for c in comparisons:
        pair = c.get("pair")
        if "error" in c or not isinstance(pair, Mapping) or "scenario_id" not in c:
            continue
        if pair.get("test_model") and pair.get("neighbor_model") and pair.get("iteration_index") is not None:
            out.add(
                signature(pair["test_model"], pair["neighbor_model"], c["scenario_id"], str(pair["iteration_index"]))
            )
    return out


def evenly_spaced(pool: Sequence[int], k: int) -> list[int]:
    """``_evenly_spaced``: ``k`` items of ``pool`` spread as evenly as possible (the ends included)."""
    if k <= 0 or not pool:
        return []
    if k == 1:
        return [pool[0]]
    if k >= len(pool):
        return list(pool)
    step = (len(pool) - 1) / (k - 1)
    out = [pool[0]] + [pool[round(i * step)] for i in range(1, k - 1)] + [pool[-1]]
    return sorted(set(out))


def pick_opponents(rank: int, size: int, tiers: tuple[int | None, ...], samples: int, rng: random.Random) -> list[int]:
    """``_pick_matchups``: ladder places to compare the model at ``rank`` with."""
    if size <= 1 or samples <= 0:
        return []
    picks: set[int] = set()
    if tiers == (None,):
        step = max(1, math.ceil(size / samples))
        middle = (size - 1) // 2
        anchor = min(max(0, middle + rng.randint(-step // 2, step // 2)), size - 1)
        anchors = [anchor]
        offset = step
        while len(anchors) < samples and (anchor - offset >= 0 or anchor + offset < size):
            if anchor - offset >= 0:
                anchors.append(anchor - offset)
            if len(anchors) < samples and anchor + offset < size:
                anchors.append(anchor + offset)
            offset += step
        picks.update(i for i in anchors if i != rank)
        return sorted(picks)[:samples]
    for tier, radius in enumerate(tiers, start=1):
        assert radius is not None
        want = samples // (2 ** (tier - 1))
        pool = [i for i in range(max(0, rank - radius), min(size - 1, rank + radius) + 1) if i != rank]
        picks.update(evenly_spaced(pool, want))
    return sorted(picks)


def _even_sample(seq: Sequence[Signature], k: int) -> list[Signature]:
    """The evenly spaced sampler of ``_judge_scenario_pairs_in_parallel`` (rounding, no forced last item)."""
    if k <= 0 or not seq:
        return []
    if k >= len(seq):
        return list(seq)
    if k == 1:
        return [seq[0]]
    step = (len(seq) - 1) / (k - 1)
    return [seq[round(i * step)] for i in range(k)]


@dataclass(frozen=True)
class Judgement:
    """One judgement to ask for: ``test`` is A0493 in the forward order."""

    test: str
    other: str
    scenario_id: str
    iteration: str
    order: str  # "forward" or "reversed"


def pairs_to_judge(
    test: str,
    other: str,
    ready: Mapping[str, set[tuple[str, str]]],
    seen: set[Signature],
    cap: int | None,
) -> list[Judgement]:
    """The judgements of ``test`` against ``other`` upstream would ask for (module docstring): ``ready`` maps each
    model to its finished (iteration, scenario) tasks; ``seen`` holds the logical pairs already judged."""
    shared = ready.get(test, set()) & ready.get(other, set())
    new: list[Signature] = []
    for sid in sorted({s for _, s in shared}):
        for iteration in sorted(i for i, s in shared if s == sid):
            sig = signature(test, other, sid, iteration)
            if sig not in seen and sig not in new:
                new.append(sig)
    lo, hi = sorted([test, other])
    already = sum(1 for s in seen if s[0] == lo and s[1] == hi)
    effective = None if cap is None else max(0, cap - already)
    if effective == 0:
        return []
    if effective and len(new) > effective:
        ordered = sorted(new, key=lambda s: (0, "", int(s[3])) if s[2] == PRIORITY_SCENARIO else (1, s[2], int(s[3])))
        keep = set(_even_sample(ordered, effective))
        new = [s for s in new if s in keep]
    return [Judgement(test, other, s[2], s[3], order) for s in new for order in ("forward", "reversed")]


@dataclass
class Placement:
    """Upstream's staged placement of ``model`` (module docstring): call :meth:`next_round` for the judgements of the
    next round, ask them, then :meth:`record` the comparisons they gave; ``None`` from :meth:`next_round` means done."""

    model: str
    ratings: dict[str, float]  # the ladder's current ratings (raw)
    ready: Mapping[str, set[tuple[str, str]]]
    comparisons: list[dict[str, Any]]
    version: ScoringVersion
    rng: random.Random = field(default_factory=lambda: random.Random(ANCHOR_SEED))
    stage: int = 0
    loops: int = 0
    stable: bool = False
    rank_before: int = -1
    log: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.ratings.setdefault(self.model, DEFAULT_ELO)
        self.schedule = SCHEDULES[self.version.name]

    def _ladder(self) -> list[str]:
        return sorted(self.ratings, key=lambda m: self.ratings[m])

    def _stage_open(self) -> bool:
        tiers = self.schedule[self.stage][0]
        if tiers == (None,):
            return self.loops == 0
        return not self.stable and self.loops < MAX_STAGE_LOOPS

    def next_round(self) -> list[Judgement] | None:
        while self.stage < len(self.schedule):
            if not self._stage_open():
                self.stage, self.loops, self.stable = self.stage + 1, 0, False
                continue
            tiers, samples = self.schedule[self.stage]
            self.loops += 1
            ladder = self._ladder()
            self.rank_before = ladder.index(self.model)
            picks = pick_opponents(self.rank_before, len(ladder), tiers, samples, self.rng)
            if not picks:
                self.stage, self.loops, self.stable = self.stage + 1, 0, False
                continue
            seen = judged(self.comparisons)
            asks: list[Judgement] = []
            for place in picks:
                depth = abs(place - self.rank_before)
                if tiers == (None,):
                    cap = 1
                else:
                    cap = samples if depth == 1 else max(1, samples // 2) if depth == 2 else max(1, samples // 4)
                asks += pairs_to_judge(self.model, ladder[place], self.ready, seen, cap)
            self.log.append(
                f"stage {self.stage + 1} round {self.loops}: {len(picks)} opponents, {len(asks)} judgements"
            )
            return asks
        return None

    def record(self, new: Sequence[dict[str, Any]]) -> None:
        """The comparisons the last round's judgements gave (errors included): re-solve and update the ladder."""
        self.comparisons.extend(new)
        first = self.schedule[self.stage][0] == (None,)
        valid = [c for c in self.comparisons if is_valid(c)]
        used = valid if first else within_window(valid, self.ratings, self.version.rank_window)
        paired = pair_comparisons(used, self.version)
        models = {p.a for p in paired} | {p.b for p in paired}
        if models:
            # 8c3a125's loop starts every model at its current rating (use_fixed_initial_ratings=False)
            start = {m: self.ratings.get(m, DEFAULT_ELO) for m in models} if self.version.name == "8c3a125" else None
            mu, _ = solve(sorted(models), paired, LOOP_BIN_SIZE, start=start)
            self.ratings.update(mu)
        self.stable = self._ladder().index(self.model) == self.rank_before
