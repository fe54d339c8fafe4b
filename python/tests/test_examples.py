"""The repository's examples/ (examples/python/quickstart.py and
examples/langgraph/agent.py) run as a user runs them — `python <script>` with
KGMEM_URL naming a real server — and print what they promise."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from kgmem import KgmemClient

from .conftest import REPO, Server

CONTEXT = """context:
# Facts
- Ana lives in Porto. (since 2024-05-01)
# Entities
- Ana (Other)
- Lisbon (Other)
- Porto (Other)
# Messages
- [2024-05-02 10:00] Ana: I moved to Porto in May.
- [2024-06-10 09:00] Ana: I started at Acme as a data engineer.

"""


def run_example(path: str, server: Server, **env: str) -> str:
    """Runs one example script against server (with env added to the
    environment) and returns what it printed."""
    out = subprocess.run([sys.executable, str(REPO / path)], env={**os.environ, "KGMEM_URL": server.url, **env},
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, f"{path} exited {out.returncode}:\n{out.stderr}"
    return out.stdout


def test_python_quickstart(server: Server) -> None:
    first = run_example("examples/python/quickstart.py", server)
    assert first == ("messages: 2 episodes\n"
                     "fact added: Ana lives in Lisbon.\n"
                     "fact added: Ana lives in Porto.\n"
                     "fact invalidated: Ana lives in Lisbon.\n"
                     "top fact: Ana lives in Porto.\n" + CONTEXT)
    shown = re.search(r"```text\n(.*?)```", (REPO / "examples/README.md").read_text(), re.S)
    assert shown is not None and shown.group(1).strip() == first.strip(), "examples/README.md shows another output"
    # A second run rewrites the same records instead of adding more.
    second = run_example("examples/python/quickstart.py", server)
    assert second == ("messages: 2 episodes\n"
                      "fact duplicate: Ana lives in Lisbon.\n"
                      "fact duplicate: Ana lives in Porto.\n"
                      "top fact: Ana lives in Porto.\n" + CONTEXT)


def test_langgraph_agent(server: Server) -> None:
    out = run_example("examples/langgraph/agent.py", server)
    assert out.splitlines() == [
        "agent: Noted: no peanuts for you.",
        "recalled: Ana is allergic to peanuts",
        "agent: How about apple slices with sunflower seed butter?",
        "stored: examples/memories/ana Ana is allergic to peanuts",
    ]
    # The memory the agent made is an item of kgmem, found by its own search.
    with KgmemClient(server.url) as c:
        items = c.search_items("examples/memories/ana", query="peanut allergy")["items"]
    assert [i["value"]["content"] for i in items] == ["Ana is allergic to peanuts"]
