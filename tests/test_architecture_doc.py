"""docs/architecture.md and the floor test agree (issue 45): every module of the package is named in the doc's tree,
the doc's table of floors is the test's, and no module falls to the façade's floor for want of its own."""

import re

from conftest import ROOT
from test_architecture import FLOORS, MODULES

DOC = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")


def _tree_entries() -> dict[str, str]:
    """The doc's tree of eqbench_nb/, as {package path: the text that describes it} (``runner``, ``eqbench/study``,
    ``""`` for the top-level modules)."""
    block = DOC.split("```", 2)[1]
    entries: dict[str, str] = {"": ""}
    stack: list[tuple[int, str]] = []
    current = ""
    for line in block.splitlines():
        m = re.match(r"^( +)([\w.]+)/ ", line + " ")
        if m and not line.strip().startswith(("figures", "data", "notebooks")):
            depth = len(m.group(1))
            stack = [(d, n) for d, n in stack if d < depth] + [(depth, m.group(2))]
            current = "/".join(n for _, n in stack)
            entries[current] = line
        elif re.match(r"^ {2}[\w_]+\.py", line):
            current = ""
            entries[""] += " " + line
        else:
            entries[current] = entries.get(current, "") + " " + line
    return entries


def test_every_module_is_named_in_the_architecture_doc():
    entries = _tree_entries()
    missing = []
    for name in MODULES:
        parts = name.split(".")[1:]
        if not parts or parts == ["__main__"]:
            continue
        package = "/".join(parts[:-1])
        stem = parts[-1]
        if "/".join(parts) in entries:  # a package: its own entry
            continue
        text = entries.get(package, "")
        if not re.search(rf"\b{re.escape(stem)}\b", text):
            missing.append(f"{name} (not in the {package or 'top-level'} entry)")
    assert not missing, "docs/architecture.md does not name: " + ", ".join(missing)


def _doc_floors() -> dict[str, int]:
    table = re.findall(r"^\| `(eqbench_nb[\w.]*)` \| (\d+) \|", DOC, re.MULTILINE)
    return {module: int(floor) for module, floor in table}


def test_the_docs_floors_are_the_tests():
    assert _doc_floors() == FLOORS


def test_no_module_takes_the_facades_floor_for_want_of_its_own():
    # the trap: a new package matched only the prefix "eqbench_nb" and silently got the façade's floor
    orphans = [
        name
        for name in MODULES
        if name not in ("eqbench_nb", "eqbench_nb.__main__")
        and max((p for p in FLOORS if name == p or name.startswith(p + ".")), key=len) == "eqbench_nb"
    ]
    assert not orphans, (
        "modules with no floor of their own (add them to FLOORS and docs/architecture.md): " + ", ".join(orphans)
    )


def test_plots_imports_no_study_until_one_of_its_plots_is_used():
    import subprocess
    import sys

    code = (
        "import sys; import eqbench_nb.plots as p; print(sorted(m for m in sys.modules if '.study' in m)); "
        "p.plot_penalty; print(sorted(m for m in sys.modules if '.study' in m))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    before, after = out.splitlines()
    assert before == "[]" and "eqbench_nb.eqbench.study.metric" in after
