"""Every Sphinx cross-reference in the package's docstrings (``:func:`eqbench_nb.x.y```, ``:mod:`.sibling```) names
something that exists: a module moved or renamed leaves no dead reference behind."""

from __future__ import annotations

import importlib
import re

from conftest import ROOT

ROLE = re.compile(r":(?:mod|func|class|meth|attr|data|exc|obj):`([^`]*)`")


def _resolves(target: str) -> bool:
    parts = target.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for name in parts[i:]:
            if not hasattr(obj, name):
                return False
            obj = getattr(obj, name)
        return True
    return False


def _references() -> list[tuple[str, int, str]]:
    found = []
    for path in sorted((ROOT / "eqbench_nb").rglob("*.py")):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        package = module.removesuffix(".__init__") if path.name == "__init__.py" else module.rsplit(".", 1)[0]
        text = path.read_text(encoding="utf-8")
        for m in ROLE.finditer(text):
            shown = m.group(1)
            target = (shown.split("<", 1)[1].rstrip(">") if "<" in shown else shown).lstrip("~")
            target = re.sub(r"\s+", "", target)
            if target.startswith("."):
                target = package + target
            if target.startswith("eqbench_nb"):
                found.append((str(path.relative_to(ROOT)), text[: m.start()].count("\n") + 1, target))
    return found


def test_the_docstrings_hold_cross_references_at_all():
    assert len(_references()) > 100  # the check below reads them (a broken pattern would find none)


def test_every_cross_reference_names_something_that_exists():
    dead = [f"{path}:{line} {target}" for path, line, target in _references() if not _resolves(target)]
    assert not dead, "dead cross-references:\n" + "\n".join(dead)
