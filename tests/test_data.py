"""The download path: a real HTTP server on loopback serving the upstream files."""

import shutil

import pytest
from conftest import DATA, needs_data, serve_folder

from eqbench_nb import data
from eqbench_nb.eqbench.questions import load_questions

pytestmark = needs_data


@pytest.fixture
def mirror(tmp_path):
    """A loopback HTTP server laid out like the upstream repository at the pinned commit."""
    root = tmp_path / "mirror"
    (root / "data").mkdir(parents=True)
    for name in data.manifest()["question_sets"]:
        shutil.copy(DATA / "eqbench" / name, root / "data" / name)
    with serve_folder(root) as url:
        yield root, url


def test_download_verifies_and_caches(mirror, no_local_data, monkeypatch):
    _, url = mirror
    monkeypatch.setenv("EQBENCH_NB_UPSTREAM_URL", url)
    qs = load_questions("v1")
    assert len(qs) == 60
    cached = list(no_local_data.rglob("eq_bench_v1_questions_60.json"))
    assert len(cached) == 1
    assert data.sha256_of(cached[0]) == data.manifest()["question_sets"]["eq_bench_v1_questions_60.json"]["sha256"]
    # a second lookup uses the cache: works with the server gone
    monkeypatch.setenv("EQBENCH_NB_UPSTREAM_URL", "http://127.0.0.1:9")
    assert data.locate("eq_bench_v1_questions_60.json") == cached[0]


def test_checksum_mismatch_is_a_clear_error_and_nothing_is_cached(mirror, no_local_data, monkeypatch):
    root, url = mirror
    (root / "data" / "eq_bench_v2_questions_171.json").write_text('{"1": "tampered"}')
    monkeypatch.setenv("EQBENCH_NB_UPSTREAM_URL", url)
    with pytest.raises(data.DataError, match=r"sha256.*nothing was cached"):
        data.locate("eq_bench_v2_questions_171.json")
    assert not list(no_local_data.rglob("*.json"))


def test_missing_data_message_says_how_to_get_it(no_local_data, monkeypatch):
    monkeypatch.setenv("EQBENCH_NB_UPSTREAM_URL", "http://127.0.0.1:9")  # nothing listens there
    with pytest.raises(data.DataError) as info:
        data.locate("eq_bench_v2_questions_171.json")
    msg = str(info.value)
    assert "../shared/data" in msg and "EQBENCH_NB_DATA" in msg and "d28c60c514fe" in msg


def test_lookup_order_explicit_path_then_env(tmp_path, monkeypatch):
    src = DATA / "eqbench" / "eq_bench_v1_questions_60.json"
    assert data.locate("eq_bench_v1_questions_60.json", path=src) == src
    alt = tmp_path / "alt" / "eqbench"
    alt.mkdir(parents=True)
    shutil.copy(src, alt / src.name)
    monkeypatch.setenv("EQBENCH_NB_DATA", str(tmp_path / "alt"))
    assert data.locate(src.name) == alt / src.name
    with pytest.raises(data.DataError):
        data.locate(src.name, path=tmp_path / "nowhere")


def test_the_polish_set_downloads_from_its_own_pinned_commit(no_local_data, monkeypatch):
    monkeypatch.delenv("EQBENCH_NB_UPSTREAM_URL", raising=False)
    monkeypatch.setattr(data.urllib.request, "urlopen", lambda url, timeout: (_ for _ in ()).throw(OSError(url)))
    for name, commit in (
        ("eq_bench_v2_questions_171_pl.json", "92e4a8f425ac"),
        ("eq_bench_v2_questions_171.json", "d28c60c514fe"),
    ):
        with pytest.raises(data.DataError) as info:
            data.locate(name)
        assert f"/{commit}" in str(info.value) and f"{commit}" in str(data.EQBENCH.cache_dir(name))
