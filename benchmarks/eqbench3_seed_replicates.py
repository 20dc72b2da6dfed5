"""Write ``data/eqbench3_seed_replicates.csv``: notebook 10's tail statistics (the separability of the scenario
bootstrap, the 5th – 95th percentile range and median of the Spearmans over shuffled orders) under 16 independent
seeds, each at full size (200 re-solves, 100 orders), so that their Monte-Carlo error is the spread over seeds
(issue 49, Wrong 1). The 16 seeds took 171 s on the shared two-core machine (one seed: about 3 s idle), more than
the notebook's share of ``reproduce``: the notebook reads this table and recomputes seed 0 itself, checking it
against the table's row.

    PYTHONPATH=$PWD python benchmarks/eqbench3_seed_replicates.py
"""

from __future__ import annotations

import time

from eqbench_nb.eqbench3 import canonical, files, study
from eqbench_nb.paths import tables_dir

SEEDS = range(16)


def main() -> None:
    start = time.perf_counter()
    table = study.seed_replicates(canonical.read_canonical(), SEEDS)
    table["value"] = table["value"].round(6)
    table["source"] = (
        f"canonical Elo results (EQ-bench/eqbench3 @ {files.FIRST_CANONICAL_COMMIT[:7]}), re-solved by "
        "eqbench_nb.eqbench3.study.seed_replicates (benchmarks/eqbench3_seed_replicates.py)"
    )
    path = tables_dir() / study.SEED_REPLICATES_FILE
    table.to_csv(path, index=False, lineterminator="\n")
    print(f"{len(table)} rows, {len(SEEDS)} seeds, {time.perf_counter() - start:.1f} s -> {path}")


if __name__ == "__main__":
    main()
