"""Write notebook 14's two resampled tables, too slow for its share of ``reproduce`` on the shared machine:

- ``data/kumar_judge_intervals.csv``: each published LLM judge (GPT-4o, Claude 3.7 Sonnet, Gemini 2.5 Pro) against
  the experts' median on each of Kumar et al.'s 21 dimensions, its kappa and a conversation-bootstrap 95 % interval
  (2,000 resamples, :func:`eqbench_nb.empathy_judges.tables.judge_verdicts`);
- ``data/welivita_pu_calibration_transfer.csv``: the stand-in judge calibrated on the human arm of Welivita & Pu
  and carried to each GPT-4 arm, both calibrations, with a rater-clustered bootstrap interval of the error (500
  resamples, :func:`eqbench_nb.welivita_pu.calibration.calibration_transfer`).

The notebook recomputes every point value itself (the kappas, the predictions, the errors) and checks them against
these rows; only the interval ends come from here.

    PYTHONPATH=$PWD python benchmarks/empathy_judges_intervals.py
"""

from __future__ import annotations

import time

import pandas as pd

from eqbench_nb.empathy_judges import files as kumar_files
from eqbench_nb.empathy_judges import tables
from eqbench_nb.paths import tables_dir
from eqbench_nb.welivita_pu import calibration, study
from eqbench_nb.welivita_pu import files as wp_files

JUDGE_INTERVALS_FILE = "kumar_judge_intervals.csv"
TRANSFER_FILE = "welivita_pu_calibration_transfer.csv"
JUDGE_REPS = 2000
TRANSFER_REPS = 500


def judge_intervals() -> pd.DataFrame:
    m = kumar_files.FILES.manifest()
    frames = [tables.judge_verdicts(j, reps=JUDGE_REPS).assign(judge=j) for j in tables.JUDGES]
    out = pd.concat(frames, ignore_index=True)[["judge", "Dataset", "Dimension", "kappa", "low", "high"]]
    out["resamples"] = JUDGE_REPS
    out["source"] = (
        f"Kumar et al. ratings ({m['repository']} @ {m['commit'][:7]}), "
        "eqbench_nb.empathy_judges.tables.judge_verdicts (benchmarks/empathy_judges_intervals.py)"
    )
    return out.round({"kappa": 6, "low": 6, "high": 6})


def transfers() -> pd.DataFrame:
    m = wp_files.FILES.manifest()
    long = study.ratings()
    judge = calibration.synthetic_judge(long)
    rows = [
        calibration.calibration_transfer(long, judge, "human", target, method, reps=TRANSFER_REPS).__dict__
        for target in study.MODEL_ARMS
        for method in calibration.METHODS
    ]
    # the arm calibrated on is the Transfer's ``source``; the table's ``source`` column is where the numbers come from
    out = pd.DataFrame(rows).rename(columns={"source": "calibrated_on"}).round(6)
    out["resamples"] = TRANSFER_REPS
    out["source"] = (
        f"Welivita & Pu, {wp_files.RATINGS_FILE} ({m['repository']} @ {m['commit'][:7]}) with the seeded stand-in "
        "judge (eqbench_nb.welivita_pu.calibration.synthetic_judge, seed 0), "
        "eqbench_nb.welivita_pu.calibration.calibration_transfer (benchmarks/empathy_judges_intervals.py)"
    )
    return out


def main() -> None:
    start = time.perf_counter()
    for name, table in ((JUDGE_INTERVALS_FILE, judge_intervals()), (TRANSFER_FILE, transfers())):
        path = tables_dir() / name
        table.to_csv(path, index=False, lineterminator="\n")
        print(f"{path.name}: {len(table)} rows")
    print(f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
