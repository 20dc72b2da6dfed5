"""Short forms of EQ-Bench v2 that survived validation (notebook 08 §5), for ``eqbench-nb run --form``.

A short form asks k of the 171 v2 questions and predicts the full official score with a line fitted on
the 86 published runs, with a 95 % prediction interval whose SD is cross-validated
(:func:`eqbench_nb.analysis.psychometrics.fit_short_form`). A form is offered only when
:func:`~eqbench_nb.analysis.psychometrics.short_form_validation` supports it: its interval keeps its
coverage on held-out runs *and* held-out questions, and it beats random questions of the same k.

The forms live in ``data/short_forms.json``, written by ``python -m eqbench_nb.eqbench.study.short_forms`` from the
published runs (the fitting is a study, :mod:`eqbench_nb.eqbench.study.short_forms`); this module only reads them
and predicts; ``tests/test_short_form.py`` checks the file against a fresh build.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..paths import tables_dir

LEVEL = 0.95
FORMS_FILE = "short_forms.json"


def forms_path() -> Path:
    return tables_dir() / FORMS_FILE


@dataclass(frozen=True)
class FormSpec:
    """One runnable short form: its questions and the line from its official score to the full score."""

    name: str
    question_ids: tuple[str, ...]
    slope: float
    intercept: float
    sd: float
    n_runs: int
    validation: dict[str, Any]

    def predict(self, form_score: float) -> tuple[float, float, float]:
        """Predicted full official score and its 95 % prediction interval (low, high)."""
        return predict(self.header(), form_score)

    def header(self) -> dict[str, Any]:
        """What the run file's header records about the form (enough to recompute the prediction)."""
        return {
            "name": self.name,
            "k": len(self.question_ids),
            "slope": self.slope,
            "intercept": self.intercept,
            "sd": self.sd,
            "n_runs": self.n_runs,
            "level": LEVEL,
            "source": "data/short_forms.json (86 published v2 runs, EQ-bench/EQ-Bench d28c60c; notebook 08 §5)",
        }


def predict(form: Mapping[str, Any], form_score: float) -> tuple[float, float, float]:
    """Predicted full official score and its ``form["level"]`` prediction interval, from a form as the run
    header records it (:meth:`FormSpec.header`) and the run's official score over the form's questions."""
    from scipy import stats as sps

    n = int(form["n_runs"])
    pred = float(form["intercept"]) + float(form["slope"]) * float(form_score)
    half = float(sps.t.ppf(0.5 + float(form["level"]) / 2, n - 2)) * float(form["sd"]) * (1 + 1 / n) ** 0.5
    return pred, pred - half, pred + half


def run_prediction(header: Mapping[str, Any], official_score: float) -> tuple[str, float, float, float] | None:
    """For a short form's run (its header's ``form``): (form name, predicted full official score, prediction
    interval low, high); NaNs when no answer parsed (no score to predict from); None for a run of no form, or one
    whose header's form cannot be read (a run file is as hostile as any input)."""
    form = header.get("form")
    if not isinstance(form, Mapping) or not form:
        return None
    try:
        name = str(form["name"])
        if official_score != official_score:
            return name, float("nan"), float("nan"), float("nan")
        return (name, *predict(form, official_score))
    except (KeyError, TypeError, ValueError, OverflowError, ZeroDivisionError):
        return None


def load_forms(path: str | Path | None = None) -> dict[str, FormSpec]:
    """The validated forms by name (``short40`` ...)."""
    raw = json.loads(Path(path or forms_path()).read_text())
    return {
        name: FormSpec(
            name,
            tuple(f["question_ids"]),
            f["slope"],
            f["intercept"],
            f["sd"],
            f["n_runs"],
            f["validation"],
        )
        for name, f in raw["forms"].items()
    }


def form_names(path: str | Path | None = None) -> list[str]:
    try:
        return sorted(load_forms(path), key=lambda n: int(n.removeprefix("short")))
    except FileNotFoundError:
        return []
