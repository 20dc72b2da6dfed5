"""Upstream's canonical Elo results file, read and re-derived comparison by comparison and model by model.

The file (``data/canonical_leaderboard_elo_results.json.gz`` of EQ-bench/eqbench3) is a JSON object: one entry per
model (``elo``, ``elo_norm``, ``sigma``, ``ci_low``, ``ci_high``, ``ci_low_norm``, ``ci_high_norm``) and
``__metadata__.global_pairwise_comparisons``, every judgement with the judge's parsed JSON (``judge_response``) and
the fields derived from it, or an ``error`` with the judge's raw text (``raw_judge_response``).

:func:`rederive` checks it against this project's implementation of the scoring version it was made with:

1. every non-error comparison's plus counts, margin, outcome and fraction recomputed from its judge object and
   compared field by field with what upstream stored;
2. each model's normalised rating recomputed from its published raw rating (the anchors), and its normalised
   interval from its published raw interval;
3. the ratings solved again as upstream's canonical recalculation does (``merge_results_to_canonical.py``: the
   window on the file's own ratings, the version's solve), ranked against the published ones;
4. the errors counted, by what went wrong.

The published ratings came from a solve over the comparisons in an order and on a ladder the file does not keep
exactly (the ladder before the last merge), so step 3 reproduces the ranking, not every decimal;
:func:`.study.order_spread` measures how much the order alone moves them.
"""

from __future__ import annotations

import gzip
import json
import math
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import files
from .pairwise import recompute
from .rating import Rating, final_solve, normalise
from .versions import FIRST_CANONICAL, ScoringVersion, scoring_version

DERIVED_FIELDS = (
    "plus_for_test",
    "plus_for_other",
    "plus_diff",
    "plus_diff_normalized",
    "plus_diff_blended",
    "outcome_for_test_model",
    "fraction_for_test",
)
RATING_FIELDS = ("elo", "elo_norm", "sigma", "ci_low", "ci_high", "ci_low_norm", "ci_high_norm")


class CanonicalFormatError(ValueError):
    """The file is not a canonical Elo results file; the message says why."""


@dataclass
class CanonicalElo:
    """The file's models (in file order) with their published ratings, and its comparisons in file order."""

    path: Path
    ratings: dict[str, dict[str, float]]
    comparisons: list[dict[str, Any]]
    last_updated: str | None = None

    @property
    def models(self) -> list[str]:
        return list(self.ratings)

    @property
    def valid(self) -> list[dict[str, Any]]:
        return [c for c in self.comparisons if "error" not in c]

    @property
    def errors(self) -> list[dict[str, Any]]:
        return [c for c in self.comparisons if "error" in c]


def is_canonical_elo(obj: Any) -> bool:
    meta = obj.get("__metadata__") if isinstance(obj, dict) else None
    return isinstance(meta, dict) and isinstance(meta.get("global_pairwise_comparisons"), list)


def parse_canonical(obj: Any, path: str | os.PathLike = "<memory>") -> CanonicalElo:
    """A canonical Elo object, its types checked (a file with another shape is refused in one line)."""
    if not is_canonical_elo(obj):
        raise CanonicalFormatError(
            f"{path}: not an EQ-Bench 3 Elo results file (no __metadata__.global_pairwise_comparisons)"
        )
    ratings: dict[str, dict[str, float]] = {}
    for model, entry in obj.items():
        if model == "__metadata__":
            continue
        if not isinstance(entry, dict) or not all(_number(entry.get(k)) for k in ("elo", "elo_norm")):
            raise CanonicalFormatError(f"{path}: model {model!r} has no numeric elo and elo_norm")
        ratings[str(model)] = {k: float(entry[k]) for k in RATING_FIELDS if _number(entry.get(k))}
    comparisons = []
    for i, c in enumerate(obj["__metadata__"]["global_pairwise_comparisons"]):
        if not isinstance(c, dict) or not isinstance(c.get("pair"), dict):
            raise CanonicalFormatError(f"{path}: comparison {i} is not an object with a pair")
        comparisons.append(c)
    return CanonicalElo(Path(path), ratings, comparisons, obj["__metadata__"].get("last_updated"))


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def read_canonical(path: str | os.PathLike | None = None) -> CanonicalElo:
    """A canonical Elo file (gzipped or not); the pinned ``8c3a125`` file when no path is given."""
    if path is None:
        raw = files.read_bytes(files.CANONICAL_ELO_8C3A125)
        where: str | os.PathLike = files.locate(files.CANONICAL_ELO_8C3A125)
    else:
        raw, where = Path(path).read_bytes(), path
    try:
        text = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
        obj = json.loads(text)
    except (OSError, EOFError, ValueError, RecursionError) as exc:
        raise CanonicalFormatError(f"{where}: not readable JSON ({type(exc).__name__})") from None
    return parse_canonical(obj, where)


@dataclass
class Rederivation:
    """What :func:`rederive` found (module docstring)."""

    version: ScoringVersion
    comparisons: int
    checked: int  # non-error comparisons recomputed
    matching: int  # ... whose every derived field equals the stored one
    mismatches: Counter = field(default_factory=Counter)  # field -> comparisons differing there
    errors: Counter = field(default_factory=Counter)  # error kind -> count
    norm_max_diff: float = 0.0  # largest |elo_norm from the published elo - published elo_norm|
    norm_ci_max_diff: float = 0.0  # the same for the normalised interval bounds
    table: list[dict[str, Any]] = field(default_factory=list)  # the per-model rows
    spearman: float = math.nan  # re-solved against published ratings
    max_abs_diff: float = math.nan  # largest |re-solved - published| normalised rating
    mean_abs_diff: float = math.nan
    in_window: int = 0  # comparisons in the rank window of the re-solve


def error_kind(comparison: dict[str, Any]) -> str:
    """What an error record says went wrong: the judge's reply did not parse (and why), or no reply came."""
    raw = str(comparison.get("raw_judge_response", ""))
    error = str(comparison.get("error", ""))
    if raw in ("", "No response") or "status_code" in error:
        return "no reply (request failed)"
    body = raw.strip()
    if body == "{":
        return "reply is a lone '{'"
    if body.endswith("}"):
        trimmed = body[: body.rfind("}")].rstrip()
        if trimmed.endswith(","):
            return "complete object with a trailing comma"
        return "complete but not valid JSON"
    return "reply cut off mid-object"


def check_comparisons(elo: CanonicalElo, version: str | ScoringVersion = FIRST_CANONICAL) -> Rederivation:
    """Steps 1, 2 and 4 of the module docstring: every comparison re-derived and compared, the anchors, the errors."""
    v = scoring_version(version)
    out = Rederivation(v, len(elo.comparisons), 0, 0)
    for c in elo.comparisons:
        derived = recompute(c, v)
        if derived is None:
            continue
        out.checked += 1
        differing = [k for k in DERIVED_FIELDS if c.get(k) != derived[k]]
        out.mismatches.update(differing)
        out.matching += not differing
    out.errors = Counter(error_kind(c) for c in elo.errors)
    published_raw = {m: r["elo"] for m, r in elo.ratings.items()}
    norm = normalise(published_raw)
    out.norm_max_diff = max(abs(norm[m] - elo.ratings[m]["elo_norm"]) for m in elo.ratings)
    bounds = {**published_raw}
    for m, r in elo.ratings.items():
        if "ci_low" in r and "ci_high" in r:
            bounds[f"{m}__low"], bounds[f"{m}__high"] = r["ci_low"], r["ci_high"]
    nb = normalise(bounds)
    diffs = [
        abs(nb[f"{m}__{side}"] - r[f"ci_{side}_norm"])
        for m, r in elo.ratings.items()
        for side in ("low", "high")
        if f"{m}__{side}" in nb and f"ci_{side}_norm" in r
    ]
    out.norm_ci_max_diff = max(diffs, default=0.0)
    return out


def rederive(elo: CanonicalElo, version: str | ScoringVersion = FIRST_CANONICAL) -> Rederivation:
    """Check a canonical file against ``version``'s rules (module docstring): comparisons, anchors, re-solve."""
    from scipy.stats import spearmanr

    out = check_comparisons(elo, version)
    solved = resolve(elo, out.version)
    out.in_window = solved.in_window
    out.table = per_model_table(elo, solved.ratings)
    ours = [solved.ratings[m].elo_norm for m in elo.models]
    theirs = [elo.ratings[m]["elo_norm"] for m in elo.models]
    out.spearman = float(spearmanr(ours, theirs).statistic)
    gaps = [abs(a - b) for a, b in zip(ours, theirs)]
    out.max_abs_diff, out.mean_abs_diff = max(gaps), sum(gaps) / len(gaps)
    return out


@dataclass
class Resolved:
    ratings: dict[str, Rating]
    in_window: int


def resolve(
    elo: CanonicalElo, version: str | ScoringVersion = FIRST_CANONICAL, comparisons: list[dict[str, Any]] | None = None
) -> Resolved:
    """The canonical recalculation: comparisons re-derived under ``version`` (HEAD re-derives; 8c3a125's merge used
    the stored fields, which equal the re-derived ones), the window on the file's published ratings, the solve."""
    from .rating import is_valid, within_window

    v = scoring_version(version)
    comps = elo.comparisons if comparisons is None else comparisons
    rederived = [{**c, **d} if (d := recompute(c, v)) is not None else c for c in comps]
    ladder = {m: r["elo"] for m, r in elo.ratings.items()}
    window = within_window([c for c in rederived if is_valid(c)], ladder, v.rank_window)
    return Resolved(final_solve(elo.models, rederived, v, ladder), len(window))


def per_model_table(elo: CanonicalElo, ratings: dict[str, Rating]) -> list[dict[str, Any]]:
    """``score``'s rows for a canonical file: model, non-error comparisons it is in, re-solved rating (raw and
    normalised), the normalised 95 % interval (mu ± 1.96 sigma, anchored), and the published normalised rating;
    best re-solved first."""
    counts: Counter = Counter()
    for c in elo.valid:
        counts[c["pair"].get("test_model")] += 1
        counts[c["pair"].get("neighbor_model")] += 1
    rows = [
        {
            "model": m,
            "comparisons": counts[m],
            "elo": ratings[m].elo,
            "elo_norm": ratings[m].elo_norm,
            "ci_low": ratings[m].ci_low_norm,
            "ci_high": ratings[m].ci_high_norm,
            "published_elo_norm": elo.ratings[m]["elo_norm"],
        }
        for m in elo.models
    ]
    return sorted(rows, key=lambda r: -r["elo_norm"])
