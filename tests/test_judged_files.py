"""The judged benchmarks' upstream files: found beside the checkout, downloaded from a loopback mirror and checked."""

import shutil

import pytest
from conftest import DATA, needs_data, serve_folder

from eqbench_nb import data
from eqbench_nb.judged import files

pytestmark = needs_data
JUDGED = DATA / "eqbench" / "judged"


@pytest.fixture
def mirror(tmp_path):
    """A loopback HTTP server laid out like EQ-bench/EQ-Bench at d28c60c (data/<name>)."""
    root = tmp_path / "mirror"
    (root / "data").mkdir(parents=True)
    for name in files.manifest()["files"]:
        shutil.copy(JUDGED / name, root / "data" / name)
    with serve_folder(root) as url:
        yield root, url


def test_both_files_are_read_from_shared_and_match_their_pins():
    prompts = files.read_json(files.PROMPTS_FILE)
    test_set = files.read_json(files.TEST_SET_FILE)
    assert files.locate(files.PROMPTS_FILE) == JUDGED / files.PROMPTS_FILE
    assert len(prompts) == 19 and len(test_set) == 19
    assert sum(len(v) for v in test_set.values()) == 360  # 19 writers x 19 prompts, one piece missing


def test_download_from_the_pinned_commit_verifies_and_caches(mirror, no_local_data, monkeypatch):
    _, url = mirror
    monkeypatch.setenv(files.MIRROR_ENV, url)
    assert len(files.read_json(files.TEST_SET_FILE)) == 19
    cached = list(no_local_data.rglob(files.TEST_SET_FILE))
    assert len(cached) == 1 and "d28c60c514fe" in str(cached[0])
    monkeypatch.setenv(files.MIRROR_ENV, "http://127.0.0.1:9")  # the cache serves it with the mirror gone
    assert files.locate(files.TEST_SET_FILE) == cached[0]


def test_a_tampered_download_is_refused_and_nothing_is_cached(mirror, no_local_data, monkeypatch):
    root, url = mirror
    (root / "data" / files.PROMPTS_FILE).write_text('{"1": {}}')
    monkeypatch.setenv(files.MIRROR_ENV, url)
    with pytest.raises(data.DataError, match=r"sha256.*nothing was cached"):
        files.locate(files.PROMPTS_FILE)
    assert not list(no_local_data.rglob("*.json"))


def test_an_edited_local_copy_is_named_as_such(tmp_path):
    copy = tmp_path / files.PROMPTS_FILE
    copy.write_bytes((JUDGED / files.PROMPTS_FILE).read_bytes().replace(b"Hansel", b"Hansal", 1))
    with pytest.raises(data.DataError, match="does not match the pinned upstream"):
        files.read_json(files.PROMPTS_FILE, path=tmp_path)


def test_missing_file_message_says_how_to_get_it(no_local_data, monkeypatch):
    monkeypatch.setenv(files.MIRROR_ENV, "http://127.0.0.1:9")
    with pytest.raises(data.DataError) as info:
        files.locate(files.PROMPTS_FILE)
    assert "eqbench/judged" in str(info.value) and "d28c60c" in str(info.value)
