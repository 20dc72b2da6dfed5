"""Regenerate ``tests/fixtures/arena_rank_style_control.json``: a small battle set and arena-rank's fit of it.

The fixture is a reference output, not a hand-computed expectation: this script draws the battles (seeded), fits
them with LMArena's ``arena-rank`` (``ContextualBradleyTerry`` with the length feature, ``reg=1.0``, and
``BradleyTerry`` raw) and records both fits with the package's version and the command. arena-rank pins numpy and
jax versions that clash with this project's constraints, so it runs in a venv of its own:

    python -m venv /tmp/arenavenv && /tmp/arenavenv/bin/pip install arena-rank==0.1.1
    /tmp/arenavenv/bin/python tests/reference_arena_rank.py

(it needs only numpy, pandas and arena-rank; it imports nothing from this project; a path argument writes the
record there instead). To check that arena-rank still gives the recorded output, write a fresh record to another
path and compare the two files (installing jax for every CI run takes minutes, so the suite uses the record).
``tests/test_bradley_terry.py`` fits the same battles with :mod:`eqbench_nb.analysis.bradley_terry` and compares.
"""

import json
import sys
from importlib.metadata import version
from pathlib import Path

import numpy as np
import pandas as pd
from arena_rank.models.bradley_terry import BradleyTerry
from arena_rank.models.contextual_bradley_terry import ContextualBradleyTerry
from arena_rank.utils.data_utils import ContextualPairDataset, PairDataset

OUT = Path(__file__).parent / "fixtures" / "arena_rank_style_control.json"
#: The penalty arena-rank defaults to (and LMArena uses), and a weak one under which the length coefficient is
#: not shrunk towards 0 (reg 1.0 on a mean log-likelihood is strong: it shrinks the coefficient heavily).
REGS = [1.0, 0.001]
COMMAND = "/tmp/arenavenv/bin/python tests/reference_arena_rank.py"


def battles(seed: int = 7, n: int = 600) -> pd.DataFrame:
    """Six models of known strength and verbosity; a judge that likes length (logit +1.2 per unit of the
    normalised length difference); about one battle in ten a tie."""
    rng = np.random.default_rng(seed)
    models = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"]
    strength = dict(zip(models, [0.8, 0.5, 0.2, 0.0, -0.3, -0.6], strict=True))
    verbosity = dict(zip(models, [300, 900, 500, 1500, 400, 1200], strict=True))
    rows = []
    for _ in range(n):
        a, b = rng.choice(models, 2, replace=False)
        la = int(rng.gamma(4.0, verbosity[a] / 4.0)) + 1
        lb = int(rng.gamma(4.0, verbosity[b] / 4.0)) + 1
        z = strength[a] - strength[b] + 1.2 * (la - lb) / (la + lb)
        p = 1 / (1 + np.exp(-z))
        u = rng.random()
        winner = "tie" if u < 0.1 else ("model_a" if rng.random() < p else "model_b")
        rows.append({"model_a": str(a), "model_b": str(b), "winner": winner, "len_a": la, "len_b": lb})
    df = pd.DataFrame(rows)
    df["length"] = (df["len_a"] - df["len_b"]) / (df["len_a"] + df["len_b"])
    return df


def main(out: Path = OUT) -> None:
    df = battles()
    ctx = ContextualPairDataset.from_pandas(df, feature_cols=["length"])
    fits = {}
    for reg in REGS:
        styled = ContextualBradleyTerry(n_competitors=ctx.n_competitors, n_features=1, reg=reg)
        fit = styled.compute_ratings_and_cis(ctx)
        fits[str(reg)] = {
            "reg": reg,
            "competitors": list(fit["competitors"]),
            "ratings": [float(r) for r in np.asarray(fit["ratings"])],
            "coeffs": [float(c) for c in np.asarray(fit["coeffs"])],
        }
    raw_data = PairDataset.from_pandas(df)
    raw = BradleyTerry(n_competitors=raw_data.n_competitors)
    out_raw = raw.compute_ratings_and_cis(raw_data)
    record = {
        "what": "arena-rank's fits of a seeded synthetic battle set (reference output; regenerate with the command)",
        "command": COMMAND,
        "arena_rank_version": version("arena-rank"),
        "jax_version": version("jax"),
        "numpy_version": version("numpy"),
        "python": sys.version.split()[0],
        "settings": {
            "regs": REGS,
            "scale": 400.0,
            "base": 10.0,
            "init_rating": 1000.0,
            "features": ["length"],
            "feature": "(len_a - len_b) / (len_a + len_b), z-scored by from_pandas",
            "weights": "from_pandas defaults (reweighted, min_pair_count 50)",
        },
        "battles": df[["model_a", "model_b", "winner", "len_a", "len_b"]].to_dict(orient="list"),
        "weights": [float(w) for w in np.asarray(ctx.weights)],
        "style_control": fits,
        "raw": {
            "competitors": list(out_raw["competitors"]),
            "ratings": [float(r) for r in np.asarray(out_raw["ratings"])],
        },
    }
    out.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)
