"""constraints.txt pins the exact version of every requirement, within pyproject's ranges, and set-up uses it."""

import tomllib

from conftest import ROOT
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name


def _pins() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, version = line.partition("==")
            assert version, f"constraints.txt: {line!r} is not an exact pin"
            pins[canonicalize_name(name)] = version
    return pins


def test_every_requirement_is_pinned_within_its_range():
    pins = _pins()
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = project["dependencies"] + [r for extra in project["optional-dependencies"].values() for r in extra]
    for text in declared:
        req = Requirement(text)
        name = canonicalize_name(req.name)
        assert name in pins, f"{req.name} is not pinned in constraints.txt (python .ci/lock_constraints.py)"
        assert req.specifier.contains(pins[name], prereleases=True), f"{name}=={pins[name]} is outside {req}"
    for dependency in ("numpy", "matplotlib", "pillow", "kiwisolver", "fonttools"):  # what draws the figures
        assert dependency in pins


def test_set_up_and_ci_install_with_the_constraints():
    readme = (ROOT / "README.md").read_text()
    assert "pip install -r requirements.txt -c constraints.txt" in readme
    ci = (ROOT / ".ci" / "run").read_text()
    assert "-r requirements.txt -c constraints.txt" in ci
    assert "eqbench_nb reproduce" in ci and "git status --porcelain" in ci
