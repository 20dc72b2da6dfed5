"""The upstream-data locators (EQ-Bench, EQ-Bench 3, EmotionBench, the judged files, Judgemark v2.1): the hint of
a missing file names only places the locator searches. Each path a hint names, made in a fresh data folder, is the
one the locator finds."""

import re

import pytest

from eqbench_nb import data
from eqbench_nb.data import DataError
from eqbench_nb.emotionbench import files as emotionbench
from eqbench_nb.eqbench3 import files as eqbench3
from eqbench_nb.judged import files as judged
from eqbench_nb.judgemark_v2 import files as judgemark_v2

LOCATORS = {
    "eqbench": (data.locate, [*data.manifest()["question_sets"], *data.manifest()["results"]]),
    "eqbench3": (eqbench3.locate, list(eqbench3.manifest()["files"])),
    "emotionbench": (emotionbench.locate, list(emotionbench.manifest()["files"])),
    "judged": (judged.locate, list(judged.manifest()["files"])),
    "judgemark_v2": (judgemark_v2.locate, list(judgemark_v2.manifest()["files"])),
}


@pytest.fixture
def nowhere(no_local_data, monkeypatch, tmp_path):
    """No data folder, an empty cache, no mirror that answers: every lookup ends in the hint."""
    for mirror in ("EQBENCH_NB_UPSTREAM_URL", eqbench3.MIRROR_ENV, emotionbench.MIRROR_ENV, judged.MIRROR_ENV,
                   judgemark_v2.MIRROR_ENV):  # fmt: skip
        monkeypatch.setenv(mirror, "http://127.0.0.1:9")
    return tmp_path


def named_paths(hint: str) -> list[str]:
    """The files inside a data folder a hint names: words with a folder and a suffix, not a URL, not an absolute path
    (the cache), not the data folder itself (``../shared/data``), not a repository (``owner/name``)."""
    words = (w.rstrip(".") for w in re.findall(r"[^\s,()]+", hint))
    return [w for w in words if "/" in w and "." in w.rsplit("/", 1)[1] and "://" not in w and w[0] not in "/."]


@pytest.mark.parametrize("locator", list(LOCATORS))
def test_every_path_a_hint_names_is_where_the_locator_finds_the_file(locator, nowhere, monkeypatch):
    locate, names = LOCATORS[locator]
    for i, name in enumerate(names):
        with pytest.raises(DataError) as missing:
            locate(name, download=False)
        hint = str(missing.value)
        paths = [p for p in named_paths(hint) if p != name]  # the file's name is not a place
        assert paths, f"the hint for {name} names no place to put it: {hint}"
        for j, rel in enumerate(paths):
            folder = nowhere / f"data {i}-{j}"
            (folder / rel).parent.mkdir(parents=True)
            (folder / rel).write_bytes(b"placed where the hint says")
            monkeypatch.setenv("EQBENCH_NB_DATA", str(folder))
            assert locate(name, download=False) == folder / rel, f"{locator} hint names {rel}: {hint}"
            monkeypatch.delenv("EQBENCH_NB_DATA")


def test_a_results_file_hint_names_the_upstream_layout(nowhere):
    name = data.published_result_names()[0]
    with pytest.raises(DataError) as missing:
        data.locate(name, download=False)
    assert f"eqbench/results/eq-bench/{name}" in str(missing.value)
    assert f"eqbench/{name}" not in str(missing.value).replace(f"eqbench/results/eq-bench/{name}", "")


@pytest.mark.parametrize("locator", list(LOCATORS))
def test_an_explicit_path_is_the_file_a_data_folder_or_any_folder_inside_it(locator, nowhere):
    """``path=`` takes the file itself, or any folder on the way to it in the layout the hint names."""
    locate, names = LOCATORS[locator]
    for i, name in enumerate(names[:3]):
        with pytest.raises(DataError) as missing:
            locate(name, download=False)
        rel = next(p for p in named_paths(str(missing.value)) if p != name)
        given = nowhere / f"given {i}"
        (given / rel).parent.mkdir(parents=True)
        (given / rel).write_bytes(b"placed where the hint says")
        parts = rel.split("/")
        for depth in range(len(parts)):
            folder = given.joinpath(*parts[:depth])
            assert locate(name, path=folder, download=False) == given / rel, f"{locator}: {name} from {folder}"
        assert locate(name, path=given / rel, download=False) == given / rel
        with pytest.raises(DataError, match="not found at"):
            locate(name, path=nowhere / "empty", download=False)
