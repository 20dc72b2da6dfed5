"""The Batch API fuzz (tests/batch_fuzz.py), short: a few seeded examples, each run to its end through kills,
deletions and hostile output, then checked (every record there and equal to the plain run's, nothing paid
twice, no traceback, no hang, no key). ``python benchmarks/fuzz_batch.py`` runs many more."""

import os

import pytest
from batch_fuzz import Example, reference_records, run_example
from conftest import needs_data

pytestmark = [pytest.mark.usefixtures("key"), needs_data]

#: Two seeds whose examples broke a guarantee of the code before issue 26 (never finished; paid twice).
SEEDS = [int(s) for s in os.environ.get("EQBENCH_NB_BATCH_FUZZ_SEEDS", "0,10").split(",") if s]


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    return reference_records(tmp_path_factory.mktemp("reference"), 4)


@pytest.mark.slow  # each example's processes are killed and started again, up to 9 times
@pytest.mark.parametrize("seed", SEEDS)
def test_a_hostile_batch_api_never_loses_doubles_hangs_or_leaks(tmp_path, reference, seed):
    outcome = run_example(Example.draw(seed), tmp_path, reference)
    assert outcome.problems == [], (outcome.example, outcome.exits)
