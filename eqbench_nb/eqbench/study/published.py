"""Published numbers: the tables committed under ``data/`` and the per-question scores of runs.

The tables are facts gathered from public sources (the EQ-Bench paper, eqbench.com, the Open LLM
Leaderboard, LMSys Chatbot Arena, vendor reports); ``data/README.md`` names the source of each
and every table carries a ``source`` column. They are read from the project's own ``data/``
folder, so the notebooks work on a clean clone with no upstream data.

:func:`write_tables` regenerates them from the collection in ``../shared/data/paper`` (column
names normalised, a ``source``/``table_source`` column added). It is how they were made; the
notebooks never call it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from ...paths import tables_dir
from ..conventions import official_iteration_score, records_by_iteration
from ..runs import EqBenchRun

#: Committed tables: name -> (file in the shared collection, source description).
TABLES: dict[str, tuple[str, str | None]] = {
    "benchmarks_joined": (
        "benchmarks_joined.csv",
        "EQ-Bench v2: eqbench.com final v2 board (EQ-bench/EQ-bench-site eqbench-v2.js @ c5327da), else its "
        "early-2024 leaderboard.csv @ e43d5e3, else results JSON (EQ-bench/EQ-Bench @ d28c60c); v1: v1-era "
        "leaderboard.csv @ 08ac306; MAGI-Hard: eqbench-v2.js; ARC/HellaSwag/MMLU/TruthfulQA/Winogrande/GSM8K: "
        "Open LLM Leaderboard v1 final (fboulnois/llm-leaderboard-csv @ 65554a1) or dsdanielpark "
        "open-llm-leaderboard-report @ 42a5fcd; Arena Elo: LMSys 2024-10-08 (fboulnois lmsys.csv @ d4e2bdf); "
        "vendor MMLU per row in mmlu_source",
    ),
    "paper_scores": (
        "paper_scores.csv",
        "EQ-Bench v1 scores: eqbench.com v1-era leaderboard.csv (EQ-bench/EQ-bench-site @ 08ac306) and the "
        "paper-era score charts (EQ-bench/EQ-Bench images/eq_bench_scores_chart.png @ 407bf52, 7eb0b1c); "
        "v2/MAGI: eqbench-v2.js @ c5327da; Arena/MT-bench/MMLU: LMSys leaderboard_table_20231206.csv; "
        "AlpacaEval v1 (tatsu-lab/alpaca_eval @ 0125b62); Open LLM Leaderboard per row in ollb_source",
    ),
    "leaderboard_v2": (
        "leaderboard_v2.csv",
        "eqbench.com EQ-Bench v2 and MAGI-Hard leaderboards (EQ-bench/EQ-bench-site eqbench-v2.js @ c5327da; "
        "early-2024 leaderboard.csv @ e43d5e3) joined to the metadata of the published results JSON "
        "(EQ-bench/EQ-Bench results/eq-bench @ d28c60c)",
    ),
    "paper_claims": ("paper_claims.csv", None),
    "paper_correlations": ("paper_correlations.csv", None),
    "paper_repeatability": ("paper_repeatability.csv", None),
}

#: The paper (arXiv 2312.06281) headline: EQ-Bench v1 correlates with MMLU at r = 0.97.
PAPER_MMLU_R = 0.97


def data_dir() -> Path:
    """The project's committed tables (``data/``; override with ``EQBENCH_NB_TABLES``)."""
    return tables_dir()


def normalise_column(name: str) -> str:
    """``"eqbench_v1_chart_2023-12-11"`` -> ``"eqbench_v1_chart_20231211"``; lower case, ``_`` only."""
    name = re.sub(r"(\d{4})-(\d{2})-(\d{2})", r"\1\2\3", str(name).strip().lower())
    return re.sub(r"[^0-9a-z]+", "_", name).strip("_")


def normalise_table(df: pd.DataFrame, shared_file: str, source: str | None) -> pd.DataFrame:
    """Normalised column names, a ``source`` column (kept if present) and a ``table_source`` column."""
    out = df.rename(columns=normalise_column)
    if "source" not in out.columns:
        out["source"] = source
    out["table_source"] = f"EQ-Bench paper data collection, paper/{shared_file} (see data/README.md)"
    return out


#: The source type of a claim read partly from the Papers-with-Code results listing, which the house's source tags
#: class as secondary (notebook 07, :mod:`~eqbench_nb.eqbench.study.paper`); the collection called such rows "primary".
CHART_AND_PWC_SOURCE_TYPE = "upstream (the benchmark author's chart and site) and secondary (Papers-with-Code)"


def reclass_source_types(claims: pd.DataFrame) -> pd.DataFrame:
    """``paper_claims`` with the source type of each row that cites the Papers-with-Code results (beside upstream's
    chart and site) as :data:`CHART_AND_PWC_SOURCE_TYPE`, not "primary" (issue 38); a row citing "same as above"
    takes the type of the row above it."""
    out = claims.copy()
    previous = None
    for i, row in out.iterrows():
        cites_pwc = "Papers-with-Code results" in str(row["source"]) or (
            str(row["source"]).strip() == "same as above" and previous == CHART_AND_PWC_SOURCE_TYPE
        )
        if cites_pwc and str(row["source_type"]).strip() == "primary":
            out.at[i, "source_type"] = CHART_AND_PWC_SOURCE_TYPE
        previous = out.at[i, "source_type"]
    return out


def write_tables(src_dir: str | os.PathLike, out_dir: str | os.PathLike | None = None) -> list[Path]:
    """Write every table of :data:`TABLES` from ``src_dir`` (``shared/data/paper``) into ``out_dir``."""
    src, out = Path(src_dir), Path(out_dir) if out_dir is not None else data_dir()
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, (fname, source) in TABLES.items():
        df = normalise_table(pd.read_csv(src / fname, keep_default_na=True), fname, source)
        if name == "paper_claims":
            df = reclass_source_types(df)
        path = out / f"{name}.csv"
        df.to_csv(path, index=False, lineterminator="\n")
        written.append(path)
    return written


def load_table(name: str) -> pd.DataFrame:
    """One committed table by name (a key of :data:`TABLES`)."""
    if name not in TABLES:
        raise KeyError(f"unknown table {name!r}; known: {', '.join(TABLES)}")
    path = data_dir() / f"{name}.csv"
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing; it is committed with the project")
    return pd.read_csv(path)


def benchmarks_joined() -> pd.DataFrame:
    """199 models with EQ-Bench v1/v2, MAGI-Hard, MMLU, ARC, HellaSwag, TruthfulQA, Winogrande,
    GSM8K, Arena Elo, plus ``mmlu_kind`` (the MMLU source family, from ``mmlu_source``)."""
    df = load_table("benchmarks_joined")
    df["mmlu_kind"] = mmlu_kind(df["mmlu_source"])
    return df


def mmlu_kind(mmlu_source: pd.Series) -> pd.Series:
    """The family of an MMLU number: ``OLLB-v1 final``, ``OLLB-v1``, ``vendor-5shot``, ``vendor``,
    ``vendor-0shotCoT``, or NaN. Only the two OLLB families are lm-eval-harness 5-shot numbers."""
    return mmlu_source.str.split(":", n=1).str[0].str.strip()


def is_ollb_mmlu(mmlu_source: pd.Series) -> pd.Series:
    """True where the MMLU number is from the Open LLM Leaderboard v1 (comparable harness numbers)."""
    return mmlu_source.fillna("").str.startswith("OLLB")


def paper_scores() -> pd.DataFrame:
    """The 38 models of the v1-era leaderboard with v1 scores and paper-era benchmark values."""
    return load_table("paper_scores")


def leaderboard_v2() -> pd.DataFrame:
    """The eqbench.com v2 leaderboard (185 rows, including ``random-baseline``)."""
    return load_table("leaderboard_v2")


def paper_claims() -> pd.DataFrame:
    """``data/paper_claims.csv``, with a ``source`` of "same as above" replaced by the row above's source, so that
    every row names its true source (a headline quotes it: :func:`claim_source`)."""
    claims = load_table("paper_claims")
    sources = claims["source"].tolist()
    for i in range(1, len(sources)):
        if str(sources[i]).strip().lower() == "same as above":
            sources[i] = sources[i - 1]
    return claims.assign(source=sources)


def claim_source(row: pd.Series) -> str:
    """How a headline sources a value read from ``paper_claims.csv``: the row's own source and source type, via the
    table, and "as published" (the value is not recomputed)."""
    return f"{row['source']} ({row['source_type']} source, via data/paper_claims.csv); as published, not recomputed"


def paper_correlations() -> pd.DataFrame:
    return load_table("paper_correlations")


def paper_repeatability() -> pd.DataFrame:
    return load_table("paper_repeatability")


def v2_leaderboard_scores(include_baseline: bool = False) -> pd.Series:
    """Final-board EQ-Bench v2 scores indexed by model (the ``random-baseline`` row left out)."""
    lb = leaderboard_v2()
    lb = lb[lb["eqbench_v2_final"].notna()]
    if not include_baseline:
        lb = lb[lb["model"] != "random-baseline"]
    return lb.set_index("model")["eqbench_v2_final"].astype(float)


def v1_paper_scores() -> pd.Series:
    """EQ-Bench v1 scores of the v1-era leaderboard (the paper's models), indexed by model."""
    ps = paper_scores()
    return ps.dropna(subset=["eqbench_v1"]).set_index("model")["eqbench_v1"].astype(float)


# ---------------------------------------------------------------------------------------------
# per-question scores of runs (official convention)
# ---------------------------------------------------------------------------------------------


def official_question_scores(run: EqBenchRun) -> pd.Series:
    """Each question's score as it enters the run's official score (NaN when left out).

    Per iteration, the pass the official rule picks (revised or first) is used, and only that
    pass's parseable questions count, exactly as :func:`eqbench_nb.eqbench.conventions.score_run` does.
    With several iterations the per-question values are averaged over iterations. ``10 x`` the
    mean of the result is the official run score (for a single iteration).
    """
    per_it = []
    for recs in records_by_iteration(run).values():
        if not recs:
            continue
        use_revised = official_iteration_score(recs)[2]
        vals = {r.question_id: (r.revised_score if use_revised else r.first_pass_score) for r in recs}
        per_it.append(pd.Series({q: np.nan if v is None else float(v) for q, v in vals.items()}, dtype=float))
    if not per_it:  # a run with no record yet (just started): no question counts
        return pd.Series(dtype=float)
    s = pd.concat(per_it, axis=1).mean(axis=1) if len(per_it) > 1 else per_it[0]
    return s


def question_score_matrix(runs: Iterable[EqBenchRun]) -> pd.DataFrame:
    """Models x questions table of official per-question scores (NaN = left out of the mean).

    Rows are labelled by model (with ``#run_id`` appended when a model has several runs),
    columns by question id in numeric order.
    """
    runs = list(runs)
    counts: dict[str, int] = {}
    for r in runs:
        counts[r.model] = counts.get(r.model, 0) + 1
    cols = {}
    for r in runs:
        label = r.model if counts[r.model] == 1 else f"{r.model}#{r.run_id}"
        cols[label] = official_question_scores(r)
    m = pd.DataFrame(cols).T
    return m[sorted(m.columns, key=lambda q: (len(str(q)), str(q)))]


# ---------------------------------------------------------------------------------------------
# base models and lineages of the models (for intervals with the lineages as the units)
# ---------------------------------------------------------------------------------------------

BASE_MODELS_FILE = "base_models.csv"


#: What a row of ``base_models.csv`` rests on (its ``source_kind``): a model card (or the maker's page) the search
#: found and its ``source`` quotes, or a rule applied to the model's name, stated in ``source``.
SOURCE_KINDS = ("model card", "name rule")


def base_models() -> pd.DataFrame:
    """``data/base_models.csv``: each model's ``base_model`` (the pretrained checkpoint its card names) and
    ``lineage`` (the earliest pretrained weights it descends from), with the source of every row and its
    ``source_kind`` (:data:`SOURCE_KINDS`). It covers every model a correlation over models uses (notebooks 04, 05
    and 08 resample the lineages, so fine-tunes of one base enter or leave a resample together)."""
    df = pd.read_csv(data_dir() / BASE_MODELS_FILE)
    if df["model"].duplicated().any():
        raise ValueError(f"{BASE_MODELS_FILE} lists a model twice: {sorted(df.loc[df.model.duplicated(), 'model'])}")
    if df[["base_model", "lineage", "source"]].isna().any().any():
        raise ValueError(f"{BASE_MODELS_FILE}: every row needs a base_model, a lineage and a source")
    bad = sorted(set(df["source_kind"]) - set(SOURCE_KINDS))
    if bad:
        raise ValueError(f"{BASE_MODELS_FILE}: source_kind must be one of {SOURCE_KINDS}, not {bad}")
    return df


def lineage_map() -> dict[str, str]:
    """{model: lineage} from :func:`base_models`: what the functions that resample or test models take as
    ``lineages=`` (:func:`eqbench_nb.analysis.stats.lineage_units`)."""
    df = base_models()
    return dict(zip(df["model"].astype(str), df["lineage"].astype(str), strict=True))


# ---------------------------------------------------------------------------------------------
# the per-question scores stored in the upstream results files, against a rescoring
# ---------------------------------------------------------------------------------------------


def stored_question_scores(paths: Iterable[str | os.PathLike]) -> pd.DataFrame:
    """Every per-question score stored in upstream results files beside a rescoring of the stored answer.

    Reads ``raw_results[it]["individual_scores"][qid]["first_pass_score" | "revised_score"]`` and
    rescores ``respondent_answers[qid][pass]`` against the released question set's key with
    :func:`~eqbench_nb.eqbench.scoring.score_question`. One row per (file, iteration, question,
    pass) where either value exists. Columns: model, iteration, question_id, pass, stored,
    rescored (NaN when there is none), published_score (the file's ``benchmark_score``).
    """
    import json

    from ..questions import questions_by_id
    from ..scoring import score_question

    rows = []
    for path in paths:
        obj = json.loads(Path(path).read_text(encoding="utf-8"))
        questions = questions_by_id(str(obj.get("eqbench_version", "v2")))
        model = str(obj.get("model_path") or Path(path).stem)
        for it, res in obj["raw_results"].items():
            answers = res.get("respondent_answers") or {}
            for qid, stored in (res.get("individual_scores") or {}).items():
                for p in ("first_pass", "revised"):
                    answer = {k: float(v) for k, v in ((answers.get(qid) or {}).get(p) or {}).items()}
                    ours = score_question(answer, questions[qid], "v2") if answer else None
                    mine = stored.get(f"{p}_score")
                    if mine is None and ours is None:
                        continue
                    rows.append((model, int(it), qid, p, mine, ours, obj.get("benchmark_score")))
    cols = ["model", "iteration", "question_id", "pass", "stored", "rescored", "published_score"]
    return pd.DataFrame(rows, columns=cols).astype({"stored": float, "rescored": float})


def stored_run_scores(stored: pd.DataFrame) -> pd.DataFrame:
    """Each run's score recomputed two ways from :func:`stored_question_scores`: from the stored
    per-question scores and from the rescoring, each with the official rule (revised pass when its
    mean is at least the first pass's and it keeps >= 95 % of the parseable answers; unparseable
    questions left out), beside the published ``benchmark_score``. Columns: model,
    from_stored, from_rescored, published_score."""
    from ..conventions import REVISED_MIN_PARSEABLE_RATIO

    def official(df: pd.DataFrame, col: str) -> float:
        first = df.loc[df["pass"] == "first_pass", col].dropna()
        revised = df.loc[df["pass"] == "revised", col].dropna()
        score = 10 * first.mean()
        if len(revised) and len(revised) >= REVISED_MIN_PARSEABLE_RATIO * len(first):
            score = max(score, 10 * revised.mean())
        return float(score)

    rows = [
        (model, official(df, "stored"), official(df, "rescored"), float(df["published_score"].iloc[0]))
        for model, df in stored.groupby("model", sort=True)
    ]
    return pd.DataFrame(rows, columns=["model", "from_stored", "from_rescored", "published_score"])
