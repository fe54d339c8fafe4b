"""The documentation's Python examples (docs/guides/python.md,
docs/guides/langgraph.md and docs/guides/procedural-memory.md) run as
pasted, against a real server, and print what their comments say."""

from __future__ import annotations

import contextlib
import io
import re

from .conftest import REPO, Server

PYTHON_GUIDE = "docs/guides/python.md"
LANGGRAPH_GUIDE = "docs/guides/langgraph.md"
PROCEDURAL_GUIDE = "docs/guides/procedural-memory.md"
GUIDES = (PYTHON_GUIDE, LANGGRAPH_GUIDE, PROCEDURAL_GUIDE)


def guide_examples(path: str) -> list[str]:
    """The Python code blocks of one page of the documentation."""
    return re.findall(r"```python\n(.*?)```", (REPO / path).read_text(), re.S)


def examples() -> list[tuple[str, str]]:
    """Every Python example of the guides, with the page it is from."""
    return [(path, code) for path in GUIDES for code in guide_examples(path)]


def expected_prints(code: str) -> list[str]:
    """The comments after each print(...) call, in order."""
    return [m.group(1) for m in re.finditer(r"^\s*print\(.*\)\s+# (.*)$", code, re.M)]


def test_readme_examples(server: Server) -> None:
    blocks = examples()
    assert [p for p, _ in blocks] == list(GUIDES), "each Python guide should hold one example"
    for path, code in blocks:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code.replace("http://127.0.0.1:8080", server.url), path, "exec"), {"__name__": "readme"})
        assert out.getvalue().splitlines() == expected_prints(code), path
