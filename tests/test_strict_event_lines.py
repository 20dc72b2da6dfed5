"""An event holding a server's text (a batch line kept apart as ``batch_stray``) may hold a number Python's JSON
reader takes but strict JSON refuses (``NaN``, ``1e999``): the event is written, that number null and named under
``not_finite``, with the key redacted, instead of a failed write stopping the run."""

import json
import math

from conftest import KEY

from eqbench_nb.runner import redact
from eqbench_nb.runner.runfile import RunFile


def _refuse(constant):
    raise ValueError(f"{constant} is not strict JSON")


def test_an_event_with_a_number_strict_json_refuses_is_written_as_null_and_named(tmp_path):
    stray = json.loads('{"custom_id": "x", "response": {"body": {"usage": {"prompt_tokens": NaN, "n": 1e999}}}}')
    assert math.isnan(stray["response"]["body"]["usage"]["prompt_tokens"])
    redact.remember(KEY)
    path = tmp_path / "run.jsonl"
    run_file = RunFile(path, {"model": "m", "run_id": "r"}, dict, ("model",))
    run_file.append_event({"event": "batch_stray", "batch_id": f"b-{KEY}", "lines": [stray]}, wait=True)
    run_file.close()
    text = path.read_text()
    lines = [json.loads(line, parse_constant=_refuse) for line in text.splitlines()]  # strict JSON, every line
    event = lines[-1]
    assert event["lines"][0]["response"]["body"]["usage"] == {"prompt_tokens": None, "n": None}
    assert len(event["not_finite"]) == 2 and KEY not in text
