"""Fitting and validating EQ-Bench v2's short forms on the 86 published runs (notebook 08 §5).

:func:`build_forms` keeps a form only when :func:`~eqbench_nb.analysis.psychometrics.short_form_validation`
supports it (coverage on held-out runs *and* questions, better than random questions of the same k);
:func:`write_forms` writes ``data/short_forms.json``, which :mod:`eqbench_nb.eqbench.short_form` reads for
``eqbench-nb run --form``. Run ``python -m eqbench_nb.eqbench.study.short_forms`` to rewrite it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from ...analysis import psychometrics as psy
from ..short_form import LEVEL, forms_path
from .ranking import convention_matrix
from .table import published_runs

KS = (20, 40, 60)


def build_forms(ks=KS, seed: int = 0, repeats: int = 10) -> dict[str, Any]:
    """Fit and validate the forms on the published runs; only the supported ones are kept.

    Returns the JSON-ready content of ``data/short_forms.json``.
    """
    m_df = convention_matrix(published_runs(), "official")
    m = m_df.to_numpy()
    ids = [str(c) for c in m_df.columns]
    full = 10 * np.nanmean(m, axis=1)
    val = psy.short_form_validation(m, ks=ks, methods=("greedy", "random"), repeats=repeats, seed=seed)
    use = psy.short_form_validation(m, ks=ks, methods=("greedy",), repeats=repeats, seed=seed, split_questions=False)
    g, r, u = (d.set_index("k") for d in (val[val.method == "greedy"], val[val.method == "random"], use))
    forms = {}
    for k in ks:
        verdict = psy.short_form_verdict(g.coverage[k], LEVEL, m.shape[0], g.rmse_universe[k], r.rmse_universe[k])
        if verdict != "supported" or not psy.interval_calibrated(u.coverage[k], LEVEL, m.shape[0]):
            continue
        form = psy.fit_short_form(m, full, k, seed=seed)
        forms[f"short{k}"] = {
            "question_ids": [ids[j] for j in form.questions],
            "slope": round(form.slope, 6),
            "intercept": round(form.intercept, 6),
            "sd": round(form.sd, 6),
            "n_runs": form.n_runs,
            "validation": {
                "coverage_runs_and_questions": round(float(g.coverage[k]), 4),
                "coverage_full_score_runs": round(float(u.coverage[k]), 4),
                "rmse_new_questions": round(float(g.rmse_universe[k]), 4),
                "rmse_new_questions_random_form": round(float(r.rmse_universe[k]), 4),
                "rmse_full_score": round(float(u.rmse_target[k]), 4),
            },
        }
    return {
        "about": "EQ-Bench v2 short forms that survived validation (eqbench_nb.analysis.psychometrics."
        "short_form_validation; notebook 08 §5); written by python -m eqbench_nb.eqbench.study.short_forms",
        "source": "86 published v2 results files, EQ-bench/EQ-Bench @ d28c60c, rescored, official convention",
        "level": LEVEL,
        "seed": seed,
        "forms": forms,
    }


def write_forms(path: str | Path | None = None) -> Path:
    out = Path(path or forms_path())
    out.write_text(json.dumps(build_forms(), indent=1, allow_nan=False) + "\n")
    return out


if __name__ == "__main__":  # pragma: no cover - a maintenance command
    print(write_forms())
