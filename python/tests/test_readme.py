"""The README's Python examples run as pasted, against a real server, and
print what their comments say."""

from __future__ import annotations

import contextlib
import io
import re

from .conftest import REPO, Server

PYTHON_SECTION = "## Use from Python"
LANGGRAPH_SECTION = "## Use as a LangGraph store (LangMem)"
SECTIONS = (PYTHON_SECTION, LANGGRAPH_SECTION)


def section_examples(title: str) -> list[str]:
    """The Python code blocks of one section of the README."""
    readme = (REPO / "README.md").read_text()
    section = readme.split(title + "\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def examples() -> list[str]:
    out = []
    for title in SECTIONS:
        out += section_examples(title)
    return out


def expected_prints(code: str) -> list[str]:
    """The comments after each print(...) call, in order."""
    return [m.group(1) for m in re.finditer(r"^\s*print\(.*\)\s+# (.*)$", code, re.M)]


def test_readme_examples(server: Server) -> None:
    blocks = examples()
    assert len(blocks) == 2, "the README's Python sections should hold one example each"
    for code in blocks:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code.replace("http://127.0.0.1:8080", server.url), "README.md", "exec"), {"__name__": "readme"})
        assert out.getvalue().splitlines() == expected_prints(code)
