"""The viewer's header facts: the bundled model is named as such in either role (never the temporary 127.0.0.1
address it was served on), and the tokens row gives tokens, the cost row the cost (once)."""

from conftest import ROOT

from eqbench_nb.runner.cost import Prices
from eqbench_nb.viewer.contract import endpoint_text
from eqbench_nb.viewer.payload import viewer_payload

X10 = ROOT / "data" / "runs" / "SmolLM2-135M-Instruct__v2__official-x10-all.jsonl"
BUNDLED = "the bundled model (llama.cpp on 127.0.0.1)"


def test_the_tokens_row_gives_tokens_and_the_cost_row_the_cost():
    facts = dict(viewer_payload([X10], Prices.given(1.0, 2.0))["runs"][0]["summary"]["facts"])
    assert "$" not in facts["tokens"] and "cost" not in facts["tokens"], facts["tokens"]
    assert facts["tokens"].startswith("prompt ") and facts["cost"].startswith("$")


def test_a_judge_on_the_bundled_model_is_named_in_files_from_before_its_flag():
    shared = "http://127.0.0.1:35157/v1"
    old = {"local_model": True, "endpoint": shared, "judge_endpoint": shared}
    assert endpoint_text(old, "judge_") == BUNDLED
    remote = {"local_model": True, "endpoint": shared, "judge_endpoint": "https://api.example.com/v1"}
    assert endpoint_text(remote, "judge_") == "https://api.example.com/v1"
    assert endpoint_text({"judge_local_model": True, "judge_endpoint": "http://127.0.0.1:4/v1"}, "judge_") == BUNDLED
    assert endpoint_text({}, "judge_") == "—"


# An EQ-Bench 3 run judged by the bundled model, viewed: tests/test_eqbench3_run.py (one bundled run for both).
