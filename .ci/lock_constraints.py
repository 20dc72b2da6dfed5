"""Write constraints.txt: the exact versions installed now of everything requirements.txt pulls in.

Run after changing requirements.txt or upgrading (python .ci/lock_constraints.py). The set-up command
and .ci/run install with ``-c constraints.txt`` so that a fresh clone gets the same numpy, matplotlib,
pandas... as the machine that drew the committed figures (other builds anti-alias a few pixels
differently, and a fresh clone's `reproduce` would leave git dirty). pyproject.toml keeps ranges, for
library users. Only the dependency closure of requirements.txt is written, with the markers of this
platform; a package another platform needs beyond it is simply not constrained.
"""

from __future__ import annotations

import importlib.metadata as md
import sys
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent


def roots() -> list[Requirement]:
    out = []
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line and not line.startswith("-"):
            out.append(Requirement(line))
    return out


def closure(requirements: list[Requirement]) -> dict[str, str]:
    """{name: installed version} of the requirements and everything they need, extras followed."""
    versions: dict[str, str] = {}
    seen: set[tuple[str, tuple[str, ...]]] = set()
    todo = [(r, tuple(sorted(r.extras))) for r in requirements]
    while todo:
        req, extras = todo.pop()
        key = (canonicalize_name(req.name), extras)
        if key in seen:
            continue
        seen.add(key)
        try:
            dist = md.distribution(req.name)
        except md.PackageNotFoundError:
            sys.exit(f"error: {req.name} is not installed; install requirements.txt first")
        versions[canonicalize_name(req.name)] = dist.version
        for text in dist.requires or []:
            sub = Requirement(text)
            if sub.marker and not any(sub.marker.evaluate({"extra": e}) for e in (*extras, "")):
                continue
            todo.append((sub, tuple(sorted(sub.extras))))
    return versions


def main() -> None:
    versions = closure(roots())
    versions.pop("eqbench-nb", None)  # the project itself, installed editable
    lines = [
        "# Exact versions for `pip install -r requirements.txt -c constraints.txt` (the README's set-up and",
        "# .ci/run): the dependency closure of requirements.txt as installed when the committed figures were",
        "# drawn. Regenerate with `python .ci/lock_constraints.py`; pyproject.toml keeps ranges for library users.",
    ]
    lines += [f"{name}=={version}" for name, version in sorted(versions.items())]
    (ROOT / "constraints.txt").write_text("\n".join(lines) + "\n")
    print(f"constraints.txt: {len(versions)} packages")


if __name__ == "__main__":
    main()
