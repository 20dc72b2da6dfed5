"""The site's published leaderboards (eqbench.com), as transcribed from EQ-bench/EQ-bench-site's JavaScript.

- EQ-Bench 3 (``eqbench3.js`` @ ``04a8066``, ``leaderboardDataEQBench3``): 79 models, each with its normalised Elo,
  its rubric score (0-100), 11 ability scores (0-20) and the Elo's normalised interval.
- EQ-Bench v2 (``eqbench-v2.js`` @ ``c5327da``, ``leaderboardDataEqbench``): 173 rows of model, v2 score and size
  (three rows carry a trailing comma, as upstream's array does: read as a fourth, empty field).

A ``*`` before a name marks a model the site flags as new; :func:`bare_name` takes it off. Which v3 model is which
v2 model is this project's judgement, one row each with its reason in ``data/eqbench3_v2_names.csv``.
"""

from __future__ import annotations

import csv
import io
from typing import TYPE_CHECKING

from . import files

if TYPE_CHECKING:
    import pandas as pd

ABILITIES = (
    "humanlike",
    "safe",
    "assertive",
    "social_iq",
    "warm",
    "analytical",
    "insightful",
    "empathy",
    "compliant",
    "moral",
    "pragmatic",
)
NAMES_TABLE = "eqbench3_v2_names.csv"
SITE_V3_SOURCE = "EQ-bench/EQ-bench-site eqbench3.js @ 04a8066 (leaderboardDataEQBench3)"
SITE_V2_SOURCE = "EQ-bench/EQ-bench-site eqbench-v2.js @ c5327da (leaderboardDataEqbench)"


def bare_name(name: str) -> str:
    return name.strip().removeprefix("*")


def eqbench3_board() -> pd.DataFrame:
    """The 79 EQ-Bench 3 rows: ``model`` (bare), ``new`` (the site's ``*``), Elo, rubric, abilities, interval."""
    import pandas as pd

    df = pd.read_csv(io.StringIO(files.read_text(files.SITE_LEADERBOARD)))
    df.insert(1, "new", df["model_name"].str.startswith("*"))
    df.insert(0, "model", df.pop("model_name").map(bare_name))
    return df


def v2_board() -> pd.DataFrame:
    """The 173 EQ-Bench v2 rows: ``model`` (bare), ``new``, ``score`` (v2, 0-100), ``params`` (as given)."""
    import pandas as pd

    rows = list(csv.reader(io.StringIO(files.read_text(files.SITE_LEADERBOARD_V2))))
    head, body = rows[0], rows[1:]
    df = pd.DataFrame([r[: len(head)] for r in body], columns=head)
    df.insert(1, "new", df["model"].str.startswith("*"))
    df["model"] = df["model"].map(bare_name)
    df["score"] = df["score"].astype(float)
    return df


def name_matches() -> pd.DataFrame:
    """The committed table of models on both boards (v3 name, v2 name, how they were matched, source)."""
    import pandas as pd

    from ..paths import tables_dir

    return pd.read_csv(tables_dir() / NAMES_TABLE, keep_default_na=False)


def both_boards() -> pd.DataFrame:
    """The models on both boards: v3 Elo and rubric beside the v2 score, per the name table."""
    names = name_matches()
    v3 = eqbench3_board()[["model", "elo_norm", "rubric_0_100"]].rename(columns={"model": "eqbench3_model"})
    v2 = v2_board()[["model", "score"]].rename(columns={"model": "v2_model", "score": "v2_score"})
    joined = names.merge(v3, on="eqbench3_model", how="inner").merge(v2, on="v2_model", how="inner")
    return joined.reset_index(drop=True)
