"""Rate-limit-adaptive concurrency against a token-bucket fake (40 requests/s) over real loopback HTTP.

Throughput figures live in benchmarks/bench_ratelimit.py; these tests check behaviour: the share of
429s, what the table reports, and that adaptive beats fixed on the same server (a null that can fail).
"""

import pytest
from conftest import run
from fake_openai_server import FakeOpenAI

from eqbench_nb.runner.ratelimit import AdaptiveLimiter, BucketReading, parse_reset, read_bucket

pytestmark = pytest.mark.usefixtures("key")


def test_reset_durations_read_as_openai_writes_them():
    assert parse_reset("20ms") == pytest.approx(0.02)
    assert parse_reset("1s") == 1.0 and parse_reset("6m0s") == 360.0 and parse_reset("1m30.5s") == 90.5
    assert parse_reset("0.5") == 0.5 and parse_reset("soon") is None and parse_reset(None) is None


def test_a_bucket_reading_gives_the_refill_rate_only_when_precise_enough():
    assert BucketReading(40, 20, 0.5).refill_per_s == pytest.approx(40.0)
    assert BucketReading(40, 39, 0.012).refill_per_s is None  # a deficit of one token says little
    assert read_bucket({"x-ratelimit-limit-requests": "40"}) is None
    reading = read_bucket(
        {
            "x-ratelimit-limit-requests": "40",
            "x-ratelimit-remaining-requests": "10",
            "x-ratelimit-reset-requests": "750ms",
        }
    )
    assert reading is not None and reading.refill_per_s == pytest.approx(40.0)


def test_fixed_concurrency_is_what_adaptive_off_gives():
    limiter = AdaptiveLimiter(16, enabled=False)
    assert limiter.window == 16 and "adaptive off" in limiter.describe()
    assert AdaptiveLimiter(16).window == 4  # a small start


def share_429(result):
    return result.stats.faults.get("429", 0) / result.stats.requests


@pytest.mark.slow
@pytest.mark.parametrize("headers", [True, False])
def test_adaptive_concurrency_holds_the_limit_with_few_429s(tmp_path, headers):
    from eqbench_nb.runner import RetryPolicy

    results = {}
    for adaptive in (False, True):
        with FakeOpenAI(latency=0.05, bucket_rate=40, bucket_headers=headers, keep_log=False) as url:
            results[adaptive] = run(
                url,
                tmp_path / str(adaptive),
                concurrency=64,
                iterations=2,
                adaptive=adaptive,
                retry=RetryPolicy(),  # the default back-off: fixed concurrency needs it to finish at all
            )
    fixed, adaptive = results[False], results[True]
    assert fixed.complete and adaptive.complete
    assert share_429(fixed) > 0.2  # today's figure (about 40 %): the fake does limit
    assert share_429(adaptive) < share_429(fixed) / 2
    if headers:
        assert share_429(adaptive) <= 0.05
        assert "from the server's x-ratelimit headers" in adaptive.concurrency
    else:
        assert "learnt from 429s" in adaptive.concurrency
    table = adaptive.table()
    assert f"429s {adaptive.stats.faults.get('429', 0)}" in table and "settled at" in table


def test_a_server_without_limits_is_soon_asked_at_full_concurrency(tmp_path):
    with FakeOpenAI(latency=0.05, keep_log=False) as url:
        result = run(url, tmp_path, concurrency=16, limit=100)
    assert "settled at 16 of 16" in result.concurrency and result.stats.retries == 0


@pytest.mark.slow
def test_an_emotionbench_run_is_paced_by_the_same_limiter(tmp_path):
    # the runner's pacing is the benchmark's too: EmotionBench against the same bucket, headers sent;
    # with pacing off the same run is answered 429 often (about 45 %), so the check can fail
    from eqbench_nb.emotionbench.task import run_emotionbench
    from eqbench_nb.runner import RetryPolicy
    from eqbench_nb.runner.settings import Endpoint, RunSettings

    results = {}
    for adaptive in (False, True):
        with FakeOpenAI(latency=0.05, bucket_rate=40, bucket_headers=True, keep_log=False) as url:
            endpoint = Endpoint(url, "fake-model", timeout_s=5, concurrency=64, adaptive=adaptive, retry=RetryPolicy())
            results[adaptive] = run_emotionbench(
                endpoint, RunSettings(tmp_path / str(adaptive), progress=False), repeats=2, default_repeats=10,
                per_factor=2,
            )  # fmt: skip
    assert all(r.complete and r.stats.requests >= 2 * 72 + 10 for r in results.values())
    assert share_429(results[False]) > 0.2
    assert share_429(results[True]) <= 0.05
