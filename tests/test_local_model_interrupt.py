"""Ctrl-C on a run with the bundled model: the run file keeps what was finished and nothing prints a traceback,
not even the router thread whose client hung up before its answer was written."""

import json
import signal
import socket
import time

import pytest
from cli_helper import cli_process
from conftest import needs_data, needs_local_model
from fake_openai_server import FakeOpenAI

from eqbench_nb.eqbench3.runs import read_eq3_run
from eqbench_nb.runner.local_model import ThreadRouter


def test_a_client_that_hangs_up_before_its_answer_leaves_no_traceback(capfd):
    with FakeOpenAI(latency=0.5) as backend:
        router = ThreadRouter({1: backend, 2: backend}, cores=2)
        host, port = router.start().removeprefix("http://").split(":")
        try:
            body = json.dumps({"model": "fake-model", "messages": [{"role": "user", "content": "hello"}]}).encode()
            with socket.create_connection((host, int(port))) as client:
                client.sendall(
                    b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    + f"Content-Length: {len(body)}\r\n\r\n".encode()
                    + body
                )
                client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\1\0\0\0\0\0\0\0")  # close with a reset
            time.sleep(1.5)  # the backend answers; the router writes to the closed connection
            served_after = json.loads(_ask(host, port, body))  # and the router still serves the next client
        finally:
            router.stop()
    assert served_after.get("choices"), served_after
    assert "Traceback" not in capfd.readouterr().err


def _ask(host: str, port: str, body: bytes) -> str:
    import http.client

    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    conn.request("POST", "/v1/chat/completions", body=body, headers={"Content-Type": "application/json"})
    return conn.getresponse().read().decode()


@needs_data
@needs_local_model
@pytest.mark.slow
def test_ctrl_c_on_an_eqbench3_run_with_the_bundled_model_prints_no_traceback(tmp_path):
    proc = cli_process("run", "--benchmark", "eqbench3", "--scenarios", "1,2,3,4", "--max-tokens", "64",
                       "--judge-max-tokens", "64", "--out", tmp_path, "--no-progress", wait=False)  # fmt: skip
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and not _records(tmp_path):  # answers flow: requests are in flight
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.2)
        assert _records(tmp_path), "no answer in 300 s"
        time.sleep(1.0)
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr and "Exception" not in stderr, stderr
    assert "interrupted" in stderr and "resume" in stderr
    (path,) = tmp_path.glob("*.jsonl")
    for line in path.read_text().splitlines():
        json.loads(line)  # whole lines only
    assert read_eq3_run(path).records  # the answers finished before Ctrl-C are kept, and the file reads


def _records(folder) -> int:
    files = list(folder.glob("*.jsonl"))
    return max(0, len(files[0].read_text().splitlines()) - 1) if files else 0
