"""EmoBench (Sabour et al., ACL 2024; github.com/Sahandfer/EmoBench @ 3b4f843, MIT) as a declaration: its items,
its prompt, its parse rule and its score; every command comes from :mod:`.declared`.

Emotional Understanding (EU: the emotion and its cause, both must be right) and Emotional Application (EA: the
most effective response or action), 200 items each in English and Chinese, asked as its ``src/main.py`` asks
them; each rule below names the upstream function it follows, decision for decision.
"""

from __future__ import annotations

import functools
import json
import re
import string
from pathlib import Path
from typing import Any

from ..data import UpstreamFiles
from ..paths import PACKAGE_DIR
from .declared import Declaration, Item, declare

FILES = UpstreamFiles(PACKAGE_DIR / "benchmarks" / "emobench_manifest.json", "EmoBench", "emobench",
                      "EQBENCH_NB_EMOBENCH_URL", "emobench/{commit}")  # fmt: skip
LETTERS = string.ascii_uppercase

# ---------------------------------------------------------------- items: data.DataLoader.load_samples, task by task


@functools.cache
def _yaml(name: str, path: Path | None) -> Any:
    import yaml

    return yaml.safe_load(FILES.read_text(name, path))


def items(path: Path | None) -> list[Item]:
    """main.py's order (EU then EA, en then zh, the file's order); the label as its letter (generate_responses)."""
    templates = {k: _yaml(f"src/configs/{k}.yaml", path) for k in ("prompts", "response")}
    out = []
    for task in ("EU", "EA"):
        rows = [json.loads(line) for line in FILES.read_text(f"data/{task}.jsonl", path).splitlines() if line]
        for lang in ("en", "zh"):
            for r in (r for r in rows if r["language"] == lang):
                keys = ("emotion", "cause") if task == "EU" else ("",)
                labels = [(r[f"{k}_choices"], r[f"{k}_label"]) if k else (r["choices"], r["label"]) for k in keys]
                category = r["coarse_category"] if task == "EU" else r["category"]
                meta = {"task": task, "language": lang, "category": category}
                out.append(Item(f"{task}-{lang}-{r['qid']}", r | templates, [LETTERS[c.index(x)] for c, x in labels],
                                meta))  # fmt: skip
    return out


# ---------------------------------------------------------------- prompt: model.LLM.init_prompt, DataLoader's format

RESPONSE_FORMAT = "\n{statement}\n```json\n    {{\n    {conditions}\n    }}\n``` \n    "  # utils.get_response_format


def prompt(item: Item, model: str) -> list[dict[str, str]]:
    """The system text and answer format (use_cot off), ``/no_think`` first for a Qwen model (its name as
    utils.get_model_name makes it), then the task's template with the choices as ``A) ...`` (rank_choices)."""
    task, lang, r = item.metadata["task"], item.metadata["language"], item.data
    prompts, response = r["prompts"], r["response"]
    system = prompts["sys"][lang] + RESPONSE_FORMAT.format(
        statement=response["base"][lang], conditions=response[task][lang]
    )
    if "qwen" in model.split("/")[-1].replace(".", "_").lower():
        system = "/no_think\n\n" + system
    ranked = {
        k: "\n".join(f"{LETTERS[i]}) {c}" for i, c in enumerate(r[k]))
        for k in ("emotion_choices", "cause_choices", "choices")
        if k in r
    }
    user = prompts[task][lang].format(
        scenario=r["scenario"],
        subject=r["subject"],
        q_type=r.get("question type"),
        emo_choices=ranked.get("emotion_choices"),
        cause_choices=ranked.get("cause_choices"),
        choices=ranked.get("choices"),
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


# ---------------------------------------------------------------- parse rule: utils.parse_json_response


def parse(text: str | None) -> Any:
    """The first ```json block when there is one, else the whole reply, as JSON; nothing read (None) where upstream
    prints an error and answers ``""`` (model.LLM.gen_response: one try, no retry). A reply that is JSON but no
    object (upstream's ``.get`` would fail) reads as nothing."""
    try:
        if text is None:
            return None
        if "```json" in text:
            found = re.search(r"```json\s*([\s\S]*?)```", text, re.DOTALL)
            text = found.group(0).replace("```json", "").replace("```", "")  # type: ignore[union-attr]
        answer = json.loads(text)
    except (ValueError, AttributeError, RecursionError):
        return None
    return answer if isinstance(answer, dict) else None


# ---------------------------------------------------------------- score: data.DataLoader.evaluate_results


def score(item: Item, answer: Any) -> dict[str, float]:
    """EU: right when both letters equal the labels' (answer_q1, answer_q2); EA: the one letter (answer)."""
    got = answer or {}
    keys = ("answer_q1", "answer_q2") if item.metadata["task"] == "EU" else ("answer",)
    right = [got.get(k, "") == t for k, t in zip(keys, item.target, strict=True)]
    return {"accuracy": float(all(right))} | (
        {"emotion": float(right[0]), "cause": float(right[1])} if len(right) == 2 else {}
    )


EMOBENCH = declare(Declaration(
    name="emobench", title="EmoBench", items=items, prompt=prompt, parse=parse, score=score, primary="accuracy",
    scores=("emotion", "cause"),
    breakdowns=(("task",), ("task", "language"), ("task", "language", "category")),
    temperature=0.6,  # model.LLM.load_model's ChatOpenAI
    max_tokens=256,  # upstream sends no limit to an API (its HF path: 50 new tokens); the JSON answer fits
    upstream={"repository": "Sahandfer/EmoBench", "commit": FILES.manifest()["commit"], "pipeline": "src/main.py"},
    files_sha256=lambda path: {n: FILES.sha256(n) or "" for n in FILES.names()},
    published="emobench_published.csv",
))  # fmt: skip
