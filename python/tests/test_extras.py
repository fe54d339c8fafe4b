"""The `[langgraph]` extra brings every package its documented example
imports, so the example runs as pasted after `pip install "kgmem[langgraph]"`."""

from __future__ import annotations

import ast
import re
import sys
from importlib import metadata

from packaging.requirements import Requirement

from .conftest import REPO
from .test_readme import LANGGRAPH_GUIDE, guide_examples

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]


def _name(dist: str) -> str:
    return re.sub(r"[-_.]+", "-", dist).lower()


def _closure(reqs: list[str]) -> set[str]:
    """The distributions reqs name and, installed, everything they require."""
    seen: set[str] = set()
    todo = [Requirement(r) for r in reqs]
    while todo:
        req = todo.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        name = _name(req.name)
        if name in seen:
            continue
        seen.add(name)
        try:
            todo += [Requirement(r) for r in metadata.requires(req.name) or []]
        except metadata.PackageNotFoundError:
            pass
    return seen


def test_langgraph_extra_covers_its_example() -> None:
    project = tomllib.loads((REPO / "python" / "pyproject.toml").read_text())["project"]
    direct = project["dependencies"] + project["optional-dependencies"]["langgraph"]
    provided = _closure(direct)
    by_module = metadata.packages_distributions()
    (code,) = guide_examples(LANGGRAPH_GUIDE)
    imported = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            imported |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    assert {"langgraph", "langmem"} <= imported
    for module in sorted(imported - set(sys.stdlib_module_names) - {"kgmem"}):
        dists = {_name(d) for d in by_module.get(module, [])}
        assert dists & provided, f"the example imports {module} ({dists or 'not installed'}), which kgmem[langgraph] does not bring"
    # The packages the example imports by name are direct members of the extra,
    # not left to another package's requirements.
    extra = {_name(Requirement(r).name) for r in project["optional-dependencies"]["langgraph"]}
    assert {"langgraph", "langmem"} <= extra
