"""MkDocs hooks (mkdocs.yml ``hooks:``): the pages that follow the checkout rather than being written by hand.

- ``reference/<group>.md``: one API page per subpackage of ``eqbench_nb`` (and one for the top-level modules),
  one ``::: module`` line per module found on disk, so a module added, renamed or removed needs no edit here;
- ``notebooks/NN_name.ipynb``: each committed notebook, rendered by mkdocs-jupyter from its stored outputs
  (``execute: false``: the build never runs a notebook);
- ``figures/``: the committed figures and SUMMARY.md, so pages link and show them where they are.

The nav's "API reference" and "Notebooks" sections are filled from the same lists.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as etree
from pathlib import Path

from markdown import Extension
from markdown.inlinepatterns import InlineProcessor
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "eqbench_nb"
NOTEBOOKS = ROOT / "notebooks"
FIGURES = ROOT / "figures"
CORE = "core"  # the group of the package's top-level modules


def modules() -> dict[str, list[str]]:
    """{group: dotted module names}, a group per subpackage (its ``__init__`` first) and ``core`` for the rest."""
    groups: dict[str, list[str]] = {CORE: ["eqbench_nb"]}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if any(p.startswith("_") and p != "__init__" for p in parts) or parts[-1] == "__main__":
            continue  # private modules (_version) and the command's entry point have no API
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if len(parts) == 1:
            continue  # eqbench_nb itself, listed first
        group = parts[1] if (PACKAGE / parts[1]).is_dir() else CORE
        groups.setdefault(group, []).append(".".join(parts))
    for group, names in groups.items():  # the package's own page first, then its modules by name
        names.sort(key=lambda n, g=group: (n not in ("eqbench_nb", f"eqbench_nb.{g}"), n))
    return groups


def reference_page(group: str, names: list[str]) -> str:
    title = "eqbench_nb (top-level modules)" if group == CORE else f"eqbench_nb.{group}"
    lines = [f"# {title}", ""]
    for name in names:
        is_package = name == "eqbench_nb" or (PACKAGE / Path(*name.split(".")[1:]) / "__init__.py").is_file()
        lines.append(f"::: {name}")
        if is_package:  # its docstring only: its members are documented where they are defined
            lines += ["    options:", "      members: false"]
        lines.append("")
    return "\n".join(lines)


def notebooks() -> list[Path]:
    return sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))


def notebook_title(path: Path) -> str:
    """``NN — title`` for the nav, whatever the notebook's own heading says (some begin ``NN —``, some do not): the
    number from the file name, the title from the first ``# `` heading of its first Markdown cell."""
    import json

    number = path.name[:2]
    cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
    text = next(("".join(c.get("source", "")) for c in cells if c.get("cell_type") == "markdown"), "")
    heading = next((line[2:].strip() for line in text.splitlines() if line.startswith("# ")), path.stem[3:])
    title = re.sub(rf"^{number}\s*—\s*", "", heading)
    return f"{number} — {title}"


class _RestRole(InlineProcessor):
    """``:func:`name``` (and the other reST roles the docstrings use) shown as the code ``name``."""

    def handleMatch(self, m: re.Match[str], data: str) -> tuple[etree.Element, int, int]:
        code = etree.Element("code")
        code.text = m.group(1).lstrip("~!")
        return code, m.start(0), m.end(0)


class RestRoles(Extension):
    def extendMarkdown(self, md) -> None:
        pattern = r":(?:py:)?(?:func|meth|class|mod|data|attr|exc|obj|const|ref|term):`([^`]+)`"
        md.inlinePatterns.register(_RestRole(pattern, md), "rest_role", 200)


@event_priority(100)  # before mkdocstrings reads the Markdown extensions
def on_config(config):
    """Fill the nav's "API reference" and "Notebooks" sections from what is on disk; read reST roles."""
    config.markdown_extensions.append(RestRoles())
    for entry in config.nav or []:
        if not isinstance(entry, dict):
            continue
        (title, _), *_ = entry.items()
        if title == "API reference":
            groups = modules()
            entry[title] = ["reference/index.md"] + [
                {("top-level modules" if g == CORE else g): f"reference/{g}.md"} for g in groups
            ]
        elif title == "Notebooks":
            entry[title] = [
                "notebooks/index.md",
                {"Headline numbers (SUMMARY.md)": "figures/SUMMARY.md"},
                *({notebook_title(p): f"notebooks/{p.name}"} for p in notebooks()),
            ]
    return config


@event_priority(100)  # before mkdocs-jupyter's on_files, which turns the .ipynb files into pages
def on_files(files: Files, config) -> Files:
    for group, names in modules().items():
        files.append(File.generated(config, f"reference/{group}.md", content=reference_page(group, names)))
    # Files of the checkout, not generated ones: mkdocs-jupyter reads a notebook by its src_dir.
    checkout = [*notebooks(), *(p for p in sorted(FIGURES.iterdir()) if p.suffix in {".png", ".svg", ".md"})]
    for path in checkout:
        uri = path.relative_to(ROOT).as_posix()
        files.append(File(uri, str(ROOT), config.site_dir, config.use_directory_urls))
    return files
