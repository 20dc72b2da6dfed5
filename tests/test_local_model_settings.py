"""The bundled model's thread count, request by request (issue 29, item 4): two threads while the other processes
leave the cores free, one once they take them (two threads then stall each other: benchmarks/bench_local_model.py),
a re-ask where its prompt is cached, and one count throughout for a seeded run."""

import threading

import pytest
from conftest import needs_local_model

from eqbench_nb.runner.local_model import (
    DEFAULT_SETTINGS,
    REPEATABLE_THREADS,
    LocalServer,
    ThreadRouter,
    _prompt_digest,
    others_runnable,
)


def router_at(load, cores=2):
    router = ThreadRouter({1: "http://127.0.0.1:1", 2: "http://127.0.0.1:2"}, cores)
    router.watch.stop()
    router.watch.value = load
    return router


def test_two_threads_on_free_cores_one_once_others_take_them_with_a_gap_against_flapping():
    router = router_at(0.2)
    picks = []
    for n, load in enumerate([0.2, 1.2, 1.8, 2.3, 1.8, 1.2]):
        router.watch.value = load
        picks.append(router.choose(f"prompt {n}"))
    assert picks == [2, 2, 2, 1, 1, 2]  # down above 2 others on 2 cores, up again below 1.5
    assert router.served == {1: 2, 2: 4}
    assert router_at(3.0).choose("p") == 1 and router_at(0.0).choose("p") == 2
    assert router_at(5.0, cores=8).choose("p") == 2  # three of eight cores are still free


def test_a_re_ask_goes_where_its_prompt_is_cached_even_when_the_load_changed():
    router = router_at(0.0)
    assert router.choose("same prompt") == 2
    router.watch.value = 3.0
    assert router.choose("same prompt") == 2  # the server that evaluated it holds it in its cache
    assert router.choose("a new prompt") == 1
    assert router.choose(None) == 1 and router.served == {1: 1, 2: 2}  # a listing of models is no request


def test_prompt_digest_reads_messages_and_nothing_else():
    body = b'{"model": "m", "messages": [{"role": "user", "content": "hi"}], "temperature": 0.01}'
    again = b'{"messages": [{"role": "user", "content": "hi"}], "temperature": 0.16, "model": "m"}'
    assert _prompt_digest("/v1/chat/completions", body) == _prompt_digest("/v1/chat/completions", again)
    assert _prompt_digest("/v1/models", body) is None and _prompt_digest("/v1/chat/completions", b"{") is None


def test_others_runnable_is_a_count_here():
    value = others_runnable()
    assert value is None or (value >= 0 and value == int(value))
    assert DEFAULT_SETTINGS.n_threads is None and DEFAULT_SETTINGS.poll == 0


@needs_local_model
@pytest.mark.slow
def test_the_runners_server_routes_a_re_ask_to_the_cached_server_and_a_seeded_run_keeps_one_count():
    import openai
    from openai import OpenAI

    from eqbench_nb import build_messages, load_questions
    from eqbench_nb.runner.local_model import MODEL_NAME

    messages = build_messages(load_questions("v2")[0])
    server = LocalServer()
    try:
        url = server.start()
        client = OpenAI(base_url=url, api_key="none", max_retries=0)
        assert server.router is not None and set(server.router.backends) == {1, 2}
        first = client.chat.completions.create(model=MODEL_NAME, messages=messages, max_tokens=8, temperature=0.01)
        again = client.chat.completions.create(model=MODEL_NAME, messages=messages, max_tokens=8, temperature=0.16)
        assert first.choices[0].message.content and again.choices[0].message.content
        assert sorted(server.router.served.values()) == [0, 2]  # both on one server: the re-ask hit its cache
        assert [m.id for m in client.models.list().data] == [MODEL_NAME]
    finally:
        # the client still holds its kept-alive connection: stop() must not wait for it (it hung here)
        stopping = threading.Thread(target=server.stop, daemon=True)
        stopping.start()
        stopping.join(timeout=20)
        assert not stopping.is_alive(), "stopping the router waited for a client's idle connection"
    seeded = LocalServer(repeatable=True)
    try:
        seeded.start()
        assert seeded.router is None and seeded.n_threads == REPEATABLE_THREADS
    finally:
        stopping = threading.Thread(target=seeded.stop, daemon=True)
        stopping.start()
        stopping.join(timeout=20)
        assert not stopping.is_alive(), "a server started and stopped at once hung in llama.cpp's destructor"
    with pytest.raises(openai.APIConnectionError):  # stopped: the router's port no longer answers
        OpenAI(base_url=url, api_key="none", max_retries=0, timeout=5).models.list()
