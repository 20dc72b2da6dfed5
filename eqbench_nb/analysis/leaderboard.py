"""What a researcher asks of a folder of runs: which runs are there, is A better than B, how do they rank.

Three functions, each returning a DataFrame (the ``eqbench-nb runs / compare / leaderboard``
commands print them):

================================  ===================================================================
:func:`runs_overview`              one row per run file: model, set, protocol, iterations, records, score
:func:`compare_runs`               A - B on their shared questions, its interval, P(A > B), separated or not
:func:`leaderboard`                score with interval, rank with interval, group letters, covariates
================================  ===================================================================

Every interval is a percentile bootstrap over **questions**: the questions every run answered (its
shared set) are resampled, the same resample for every run, so differences are paired
(:mod:`eqbench_nb.analysis.stats`, :mod:`eqbench_nb.analysis.ranking`). A question's value is its
score under the convention (:func:`eqbench_nb.analysis.ranking.convention_matrix`); an iteration's
score is ``scale`` x its mean over the shared questions and a run's is the mean over its iterations,
so on a run's full set it is its :func:`eqbench_nb.eqbench.conventions.score_run` score (before
rounding), iterations included, and every replicate resamples the questions of every iteration
alike (:func:`bootstrap_runs`). P(A > B) compares the questions' values averaged over iterations. Under the
official convention an unparseable answer is left out of the mean, so a run with no parseable
answer has no score (NaN, printed ``—``), not 0.

Group letters are a compact letter display (Piepho 2004) of the pairwise separation: two runs share a
letter exactly when the paired interval of their difference includes 0 (each pair tested at ``level``,
uncorrected, as :func:`eqbench_nb.analysis.stats.pairwise_separation`); the groups are found greedily,
in polynomial time (:func:`compact_letters`).
"""

from __future__ import annotations

import dataclasses
import os
import string
import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ..eqbench.conventions import CONVENTIONS, convention_score, records_by_iteration, score_run
from ..eqbench.questions import questions_by_id
from ..eqbench.runs import Run, RunFormatError, find_run_files, is_eqbench_file, is_run_file, read_run
from ..runner.items import timestamp_text
from .ranking import convention_matrix, pairwise_comparisons, ranks, run_labels
from .stats import DEFAULT_LEVEL, DEFAULT_REPS, bootstrap_means, percentile_interval, separated_pairs

RunLike = Run | str | os.PathLike
LETTERS = string.ascii_lowercase + string.ascii_uppercase

__all__ = [
    "bootstrap_runs",
    "compact_letters",
    "compare_runs",
    "compare_statement",
    "group_names",
    "leaderboard",
    "letter_groups",
    "load_runs",
    "runs_overview",
    "separation",
    "shared_matrix",
]


def load_runs(runs: RunLike | Iterable[RunLike]) -> list[Run]:
    """EQ-Bench runs from Run objects, run files, or folders of them (folders expanded, files sorted).

    A folder's runs of other benchmarks (``data/runs/`` holds one) are passed over: these tables compare EQ-Bench
    scores; a named one is a :class:`RunFormatError` that says so."""
    items = [runs] if isinstance(runs, (Run, str, os.PathLike)) else list(runs)
    out: list[Run] = []
    for item in items:
        if isinstance(item, Run):
            out.append(item)
            continue
        for path in find_run_files([item], is_run_file):  # a folder's files of no run format passed over, said
            if not is_eqbench_file(path):
                if Path(item).is_dir():
                    continue
                raise RunFormatError(path, "a run of another benchmark; this compares EQ-Bench runs")
            out.append(read_run(path))
    return out


def scale_of(convention: str) -> float:
    """Multiplier from a convention's question values to its run score (evalscope's is 0-1)."""
    return 0.1 if convention == "evalscope" else 10.0


# ---------------------------------------------------------------- runs


def runs_overview(runs: RunLike | Iterable[RunLike], sort: str | None = None) -> pd.DataFrame:
    """One row per run: file, model, run_id, set, protocol, form (a short form's name: only its questions were
    asked, so its score is not a full one; None for a whole set), revise, iterations, questions (per iteration),
    records (found / expected), complete, score (official; NaN when no answer parsed), parseable (% per
    iteration), started and finished (where the file records them: upstream files record only when
    they finished, this project's only when they started).

    ``sort`` names a column; ``score`` sorts best first, the others ascending.
    """
    rows = []
    for run in load_runs(runs):
        s = score_run(run, "official")
        expected = run.n_questions * len(run.iterations)
        rows.append(
            {
                "model": run.model,
                "run_id": run.run_id,
                "set": run.version,
                "protocol": run.header.get("protocol"),
                "form": run.form,
                "revise": run.revise,
                "iterations": len(run.iterations),
                "questions": run.n_questions,
                "records": len(run.records),
                "complete": len(run.records) >= expected,
                "score": s.score,
                "parseable": round(s.percent_parseable, 1),
                "started": timestamp_text(run.header.get("started_at")),
                "finished": timestamp_text(run.header.get("finished_at")),
                "file": run.path,
            }
        )
    table = pd.DataFrame(rows, columns=_OVERVIEW_COLUMNS)
    return sort_table(table, sort)


_OVERVIEW_COLUMNS = [
    "model",
    "run_id",
    "set",
    "protocol",
    "form",
    "revise",
    "iterations",
    "questions",
    "records",
    "complete",
    "score",
    "parseable",
    "started",
    "finished",
    "file",
]


def sort_table(table: pd.DataFrame, column: str | None) -> pd.DataFrame:
    """``table`` sorted by ``column`` (score-like columns best first, NaN last); unchanged for None."""
    if column is None:
        return table.reset_index(drop=True)
    if column not in table.columns:
        raise ValueError(f"cannot sort by {column!r}; choose from {', '.join(table.columns)}")
    descending = column in ("score", "parseable", "diff")
    return table.sort_values(column, ascending=not descending, na_position="last", kind="stable").reset_index(drop=True)


# ---------------------------------------------------------------- the shared matrix


def shared_matrix(runs: Sequence[Run], convention: str = "official") -> pd.DataFrame:
    """Runs x shared questions: each question's value under ``convention`` (NaN = left out, official only).

    The shared questions are those every run set out to answer; runs of different question sets
    cannot be compared and raise ``ValueError``.
    """
    if convention not in CONVENTIONS:
        raise ValueError(f"convention must be one of {', '.join(CONVENTIONS)}, not {convention!r}")
    if not runs:
        raise ValueError("no runs to compare")
    sets = sorted({r.version for r in runs})
    if len(sets) > 1:
        raise ValueError(f"runs of different question sets ({', '.join(sets)}) have no questions in common")
    shared = set(runs[0].asked_ids)
    for r in runs[1:]:
        shared &= set(r.asked_ids)
    if not shared:
        raise ValueError("the runs share no question")
    matrix = convention_matrix(runs, convention)
    return matrix[[q for q in matrix.columns if q in shared]]


def _iterations(run: Run) -> list[Run]:
    """Each iteration of ``run`` that has records, as a one-iteration run of its own."""
    return [
        Run({**run.header, "iterations": 1}, [dataclasses.replace(r, iteration=1) for r in recs], run.path)
        for recs in records_by_iteration(run).values()
        if recs
    ]


@dataclasses.dataclass(frozen=True)
class RunBootstrap:
    """Runs' scores on their shared questions and ``reps`` bootstrap replicates of them.

    ``boot[b, k]`` is run k's score when the shared questions are resampled (replicate b, the
    same resample for every run and every iteration): each iteration's score is ``scale`` x its
    mean over the resampled questions (NaNs left out), and a run's is the mean over its
    iterations, as the official score is. ``questions`` holds each question's value averaged
    over iterations (for P(A > B)).
    """

    estimate: np.ndarray
    boot: np.ndarray
    questions: pd.DataFrame


def bootstrap_runs(
    runs: Sequence[Run], convention: str = "official", reps: int = DEFAULT_REPS, seed: int | None = 0
) -> RunBootstrap:
    """:class:`RunBootstrap` of ``runs`` (see :func:`shared_matrix` for the shared questions)."""
    questions = shared_matrix(runs, convention)
    owners, pieces = [], []
    for k, run in enumerate(runs):
        for one in _iterations(run):
            owners.append(k)
            pieces.append(one)
    owner = np.array(owners)
    per_iteration = convention_matrix(pieces, convention)[list(questions.columns)].to_numpy(float)
    scale = scale_of(convention)
    with warnings.catch_warnings():  # an iteration, or a run, with no parseable answer: NaN, said as such
        warnings.simplefilter("ignore", RuntimeWarning)
        boot_it = bootstrap_means(per_iteration, reps, seed) * scale
        est_it = scale * np.nanmean(per_iteration, axis=1)
        boot = np.stack([np.nanmean(boot_it[:, owner == k], axis=1) for k in range(len(runs))], axis=1)
        estimate = np.array(
            [np.nanmean(est_it[owner == k]) if (owner == k).any() else np.nan for k in range(len(runs))]
        )
    return RunBootstrap(estimate, boot, questions)


def separation(boot: np.ndarray, level: float = DEFAULT_LEVEL) -> np.ndarray:
    """Which pairs of runs differ beyond noise: the ``level`` percentile interval of their bootstrap
    difference excludes 0 (each pair on its own, uncorrected), as
    :func:`eqbench_nb.analysis.stats.pairwise_separation` decides it from a score matrix."""
    return separated_pairs(boot, level)


def _parseable_percent(run: Run, shared: set[str], convention: str) -> float:
    """Share of the shared questions parsed per iteration (mean over iterations), as the convention reads them."""
    questions = questions_by_id(run.version)
    shares = []
    for recs in records_by_iteration(run).values():
        mine = [r for r in recs if r.question_id in shared]
        if convention == "official":
            revised = _uses_revised(recs)
            ok = sum((r.revised_score if revised else r.first_pass_score) is not None for r in mine)
        else:
            ok = sum(convention_score(r, questions[r.question_id], convention, run) is not None for r in mine)
        shares.append(100.0 * ok / len(shared))
    return float(np.mean(shares)) if shares else float("nan")


def _uses_revised(records: list) -> bool:
    from ..eqbench.conventions import official_iteration_score

    return bool(records) and official_iteration_score(records)[2]


# ---------------------------------------------------------------- compare


def compare_runs(
    a: RunLike,
    b: RunLike,
    convention: str = "official",
    reps: int = DEFAULT_REPS,
    level: float = DEFAULT_LEVEL,
    seed: int | None = 0,
) -> pd.DataFrame:
    """A - B on their shared questions: one row with the difference and its paired interval, P(A > B).

    Columns: ``a, b, convention, questions`` (shared), ``score_a, score_b, diff, diff_low, diff_high``
    (percentile bootstrap over the shared questions, the same resample for both runs), ``p_a_better``
    (P(A > B): the share of questions both parsed on which A scores higher, ties half) with
    ``p_low, p_high``, ``separated`` (the difference's interval excludes 0), ``verdict`` and
    ``level, reps``.
    """
    ra, rb = load_runs(a), load_runs(b)
    if len(ra) != 1 or len(rb) != 1:
        raise ValueError("compare takes exactly one run file for A and one for B")
    runs = [ra[0], rb[0]]
    bs = bootstrap_runs(runs, convention, reps, seed)
    diff_boot = bs.boot[:, 0] - bs.boot[:, 1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        diff_low, diff_high = percentile_interval(diff_boot, level)
    poi = pairwise_comparisons(bs.questions.to_numpy(float), reps, level, seed).table.iloc[0]
    la, lb = run_labels(runs) if runs[0].model != runs[1].model else _distinct_labels(runs)
    diff = float(bs.estimate[0] - bs.estimate[1])
    separated = bool(diff_low > 0 or diff_high < 0)
    verdict = "not separated" if not separated else ("A higher" if diff > 0 else "B higher")
    return pd.DataFrame(
        [
            {
                "a": la,
                "b": lb,
                "convention": convention,
                "questions": bs.questions.shape[1],
                "score_a": bs.estimate[0],
                "score_b": bs.estimate[1],
                "diff": diff,
                "diff_low": float(diff_low),
                "diff_high": float(diff_high),
                "p_a_better": poi["poi"],
                "p_low": poi["poi_low"],
                "p_high": poi["poi_high"],
                "separated": separated,
                "verdict": verdict,
                "level": level,
                "reps": reps,
            }
        ]
    )


def _distinct_labels(runs: Sequence[Run]) -> list[str]:
    a, b = runs
    if a.run_id != b.run_id:
        return [f"{a.model}#{a.run_id}", f"{b.model}#{b.run_id}"]
    return [f"{a.model} ({Path(a.path or 'A').name})", f"{b.model} ({Path(b.path or 'B').name})"]


def _num(x: float, digits: int) -> str:
    return "—" if not np.isfinite(x) else f"{x:+.{digits}f}"


def compare_statement(row: pd.Series | pd.DataFrame) -> str:
    """The comparison in one sentence, rliable-style: difference, interval, what was resampled, P(A > B)."""
    r = row.iloc[0] if isinstance(row, pd.DataFrame) else row
    d = 4 if r["convention"] == "evalscope" else 2
    conclusion = {
        "A higher": "separated: A scores higher",
        "B higher": "separated: B scores higher",
        "not separated": "not separated: the interval includes 0",
    }[r["verdict"]]
    p = "—" if not np.isfinite(r["p_a_better"]) else f"{r['p_a_better']:.2f} [{r['p_low']:.2f}, {r['p_high']:.2f}]"
    return (
        f"A - B = {_num(r['diff'], d)} [{_num(r['diff_low'], d)}, {_num(r['diff_high'], d)}] {r['convention']} "
        f"points on {r['questions']} shared questions ({r['level']:.0%} percentile bootstrap over questions, "
        f"{r['reps']:,} resamples); P(A > B) on a question = {p}; {conclusion}"
    )


# ---------------------------------------------------------------- leaderboard


def compact_letters(separated: np.ndarray, order: Sequence[int] | None = None) -> list[str]:
    """Group letters: items share a letter exactly when they are not separated.

    ``separated`` is a symmetric boolean matrix. The groups are maximal sets of items no two of which
    are separated (cliques of the "not separated" graph) that together hold every pair not separated
    and every item (:func:`letter_groups`). Letters go to groups in the order of their best member in
    ``order`` (the ranking, best first), so the top group is ``a``. Polynomial in the number of items
    (Piepho's 2004 insert-and-absorb lists every maximal clique, which grows exponentially on some
    separation patterns: 100 runs did not finish in 150 s; ``benchmarks/bench_letters.py``).
    """
    sep = np.asarray(separated, dtype=bool)
    k = sep.shape[0]
    order = list(range(k)) if order is None else list(order)
    groups = letter_groups(sep, order)
    position = {item: p for p, item in enumerate(order)}
    groups.sort(key=lambda g: sorted(position[x] for x in g))
    held: list[list[int]] = [[] for _ in range(k)]  # each item's groups, in letter order
    for n, g in enumerate(groups):
        for item in g:
            held[item].append(n)
    if len(groups) <= len(LETTERS):
        return ["".join(LETTERS[n] for n in mine) for mine in held]
    # past z and Z: groups are numbered, consecutive ones as a range ("1-3,17"), so each entry reads one way
    return [_ranges([n + 1 for n in mine]) for mine in held]


def letter_groups(separated: np.ndarray, order: Sequence[int]) -> list[frozenset[int]]:
    """Maximal groups of items no two of which are ``separated``, covering every pair that is not and every item.

    For each item in ``order`` (best first) and each partner it shares no group with yet (best first), one
    group is grown from the pair by adding, best first, every item not separated from all its members
    (those that share no group with the item yet before the others, so each group covers many new pairs),
    so it is maximal and holds a pair no earlier group held (it is new). Sets of items are bit masks over the
    positions in ``order``: each group costs O(k) mask operations, and there are at most as many groups as
    pairs not separated, so the whole is polynomial (about k² mask operations when separation follows the
    ranking, as it mostly does)."""
    sep = np.asarray(separated, dtype=bool)
    order = list(order)
    k = len(order)
    together = ~sep[np.ix_(order, order)]  # in rank positions
    neighbours = [sum(1 << int(q) for q in np.flatnonzero(together[p]) if q != p) for p in range(k)]
    shared = [0] * k  # positions each position already shares a group with
    groups: list[frozenset[int]] = []
    for p in range(k):
        if not neighbours[p]:
            groups.append(frozenset({order[p]}))
        while missing := neighbours[p] & ~shared[p]:
            q = _lowest(missing)
            members = (1 << p) | (1 << q)
            candidates = neighbours[p] & neighbours[q]
            while candidates:  # add the best item still not separated from every member, first of those that
                # share no group with p yet (each group then covers many new pairs), then of the others
                fresh = candidates & missing
                r = _lowest(fresh or candidates)
                members |= 1 << r
                candidates &= neighbours[r]
            for m in _positions(members):
                shared[m] |= members & ~(1 << m)
            groups.append(frozenset(order[m] for m in _positions(members)))
    return groups


def _lowest(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


def _positions(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _ranges(numbers: list[int]) -> str:
    """Ascending numbers as ranges: [1, 2, 3, 7] -> "1-3,7"."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and runs[-1][1] == n - 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def group_names(entry: str) -> set[str]:
    """The groups in a :func:`compact_letters` entry: ``"abc"``, or ``"1-3,17"`` past 52 groups."""
    if not entry[:1].isdigit():
        return set(entry)
    names: set[str] = set()
    for part in entry.split(","):
        first, _, last = part.partition("-")
        names.update(str(n) for n in range(int(first), int(last or first) + 1))
    return names


def leaderboard(
    runs: RunLike | Iterable[RunLike],
    convention: str = "official",
    reps: int = DEFAULT_REPS,
    level: float = DEFAULT_LEVEL,
    seed: int | None = 0,
) -> pd.DataFrame:
    """One row per run, best first: ``rank, group, model, run_id, score, low, high, rank_low, rank_high,
    parseable`` (% of the shared questions, per iteration), ``questions`` (shared), ``iterations,
    protocol, form`` (a short form's name, None for a whole set)``, revise, engine, quantisation, file``.

    Intervals resample the shared questions (one resample for every run); ranks are 1 = best with
    ties averaged; ``group`` is :func:`compact_letters` of the pairwise separation at ``level``. A run
    with no parseable answer has no score, rank or group (NaN / empty) and is listed last.
    """
    loaded = load_runs(runs)
    bs = bootstrap_runs(loaded, convention, reps, seed)
    matrix = bs.questions
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        low, high = percentile_interval(bs.boot, level)
        rank_low, rank_high = percentile_interval(ranks(bs.boot, axis=1), level)
    defined = np.isfinite(bs.estimate)
    letters = [""] * len(loaded)
    idx = np.flatnonzero(defined)
    if len(idx):
        sep = separation(bs.boot[:, idx], level)
        order = np.argsort(-bs.estimate[idx], kind="stable").tolist()
        for i, letter in zip(idx, compact_letters(sep, order)):
            letters[i] = letter
    shared = set(matrix.columns)
    table = pd.DataFrame(
        {
            "rank": np.where(defined, ranks(bs.estimate), np.nan),
            "group": letters,
            "model": [r.model for r in loaded],
            "run_id": [r.run_id for r in loaded],
            "score": bs.estimate,
            "low": np.where(defined, low, np.nan),
            "high": np.where(defined, high, np.nan),
            "rank_low": np.where(defined, rank_low, np.nan),
            "rank_high": np.where(defined, rank_high, np.nan),
            "parseable": [round(_parseable_percent(r, shared, convention), 1) for r in loaded],
            "questions": len(shared),
            "iterations": [len(r.iterations) for r in loaded],
            "protocol": [r.header.get("protocol") for r in loaded],
            "form": [r.form for r in loaded],
            "revise": [r.revise for r in loaded],
            "engine": [_engine(r) for r in loaded],
            "quantisation": [r.header.get("quantisation") for r in loaded],
            "file": [r.path for r in loaded],
        }
    )
    return table.sort_values(["score", "model"], ascending=[False, True], na_position="last").reset_index(drop=True)


def _engine(run: Run) -> str | None:
    engine = run.header.get("inference_engine")
    if engine:
        return str(engine)
    return "llama.cpp (bundled)" if run.header.get("local_model") else None
