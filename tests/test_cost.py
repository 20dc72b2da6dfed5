"""Tokens and cost: the dry run sends nothing and prices what a run would send; the table prices what
it did send (half with the Batch API)."""

import re

from test_cli_run import cli

from eqbench_nb.eqbench.prompts import build_messages
from eqbench_nb.eqbench.questions import load_questions
from eqbench_nb.runner.cost import CHARS_PER_TOKEN, Prices, Usage, approximate, token_counter


def test_the_approximation_is_stated_when_no_tokenizer_loads():
    counter = token_counter("no-such-model")
    assert counter.method == "approximation: 4 characters per token"
    assert counter.count("x" * 9) == 3 == approximate("abcdefghi") and CHARS_PER_TOKEN == 4


def test_dry_run_sends_nothing_and_prices_the_requests():
    # no --base-url and no bundled model started: a dry run needs neither
    proc = cli("run", "--dry-run", "--limit", "10", "--price-in", "3", "--price-out", "12", "--model", "x")
    assert proc.returncode == 0, proc.stderr
    counter = token_counter("x")
    prompts = sum(counter.messages(build_messages(q, False)) for q in load_questions("v2")[:10])
    assert "requests   10 (up to 30 if every re-ask is needed)" in proc.stdout
    assert f"prompt     {prompts:,} tokens" in proc.stdout and "completion at most 600 tokens" in proc.stdout
    low, high = prompts * 3 / 1e6, (prompts * 3 + 600 * 12) / 1e6
    assert f"cost       ${low:,.4f} (prompts) to ${high:,.4f} (every limit used)" in proc.stdout
    batch = cli("run", "--dry-run", "--limit", "10", "--price-in", "3", "--price-out", "12", "--batch", "--model", "x")
    assert f"${low / 2:,.4f} (prompts) to ${high / 2:,.4f}" in batch.stdout and "Batch API half price" in batch.stdout


def test_dry_run_with_max_tokens_counts_the_larger_limit():
    proc = cli("run", "--dry-run", "--limit", "4", "--iterations", "2", "--max-tokens", "4000", "--model", "x")
    assert "requests   8 (up to 24" in proc.stdout and "completion at most 32,000 tokens" in proc.stdout
    assert "give --price-in and --price-out" in proc.stdout


def test_a_judge_without_prices_is_told_the_judges_price_options():
    """A judge is priced by --judge-price-in/--judge-price-out: its dry run named --price-in, which prices the model
    under test (Judgemark has none), so the cost stayed unknown whatever was given."""
    judge = ("--judge-base-url", "http://127.0.0.1:9/v1", "--judge-model", "j")
    for benchmark, more in (
        ("judgemark", ()),
        ("creative-writing", ("--model", "m", "--base-url", "http://127.0.0.1:9/v1")),
        ("eqbench3", ("--model", "m", "--base-url", "http://127.0.0.1:9/v1", "--scenarios", "13")),
    ):
        proc = cli("run", "--benchmark", benchmark, "--dry-run", *judge, *more)
        assert proc.returncode == 0, proc.stderr
        judge_part = proc.stdout.split("\njudge", 1)[1].split("\ntotal", 1)[0]
        assert "give --judge-price-in and --judge-price-out" in judge_part, (benchmark, judge_part)
        priced = cli("run", "--benchmark", benchmark, "--dry-run", *judge, *more, "--judge-price-in", "1",
                     "--judge-price-out", "2")  # fmt: skip
        assert "at $1 in / $2 out" in priced.stdout.split("\njudge", 1)[1], (benchmark, priced.stdout)


def test_usage_counts_reasoning_and_prices_it_as_completion():
    attempts = [
        {"text": "a", "prompt_tokens": 100, "completion_tokens": 400, "reasoning_tokens": 300},
        {"text": None, "prompt_tokens": 100, "completion_tokens": 60, "reasoning_tokens": 60},
        {"text": "b", "prompt_tokens": None, "completion_tokens": None},
    ]
    usage = Usage.of(attempts)
    assert (usage.prompt, usage.completion, usage.reasoning, usage.unreported) == (200, 460, 360, 1)
    line = usage.describe(Prices(1.0, 10.0))
    assert "(reasoning 360)" in line and f"cost ${(200 * 1 + 460 * 10) / 1e6:,.4f}" in line
    half = re.search(r"cost \$([0-9.]+)", usage.describe(Prices(1.0, 10.0, batch=True)))
    assert half and float(half.group(1)) == round((200 + 4600) / 2e6, 4)


def test_bad_prices_and_limits_are_one_line():
    for args, word in ((("--price-in", "-1"), "--price-in"), (("--max-tokens", "0"), "--max-tokens")):
        proc = cli("run", "--dry-run", *args)
        assert proc.returncode == 2 and word in proc.stderr and "Traceback" not in proc.stderr


def test_one_prices_object_carries_the_judges_and_reads_the_batch_half_from_the_run_header():
    """Issue 39: one :class:`Prices` from the command line to the viewer; the run's header (``"batch": true``, as an
    attempt's is read) is what halves them, and only for the run's own endpoint."""
    from eqbench_nb.runner.header import RunHeader

    given = Prices.given(2.0, 8.0, judge_price_in=3.0)
    assert (given.price_in, given.price_out, given.batch) == (2.0, 8.0, False)
    assert given.of_judge == Prices(3.0, None) and Prices().of_judge == Prices()  # none given: unknown, not free
    batched = given.of_run(RunHeader.read({"model": "m", "batch": True}))
    assert batched.batch and batched.judge == given.judge and not batched.of_judge.batch
    usage = Usage(prompt=1_000_000, completion=1_000_000)
    assert batched.cost_of(usage) == 5.0 and given.cost_of(usage) == 10.0
    for not_batched in ({}, {"batch": False}, {"batch": "yes"}, {"batch": 1}):  # only true says it
        assert not given.of_run(RunHeader.read({"model": "m", **not_batched})).batch, not_batched
