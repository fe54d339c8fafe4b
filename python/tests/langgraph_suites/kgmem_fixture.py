"""What the vendored LangGraph suites build their stores with: KgmemStore on
the live test server of the running test's backend pair, its items wiped
before each test (LangGraph's fixtures give every test a fresh store).

This file and conftest.py are kgmem's; the suites beside them are
LangGraph's, changed only where they build a store (see README.md).
"""

from __future__ import annotations

from typing import Any

from kgmem import KgmemClient
from kgmem.langgraph import KgmemStore

_server: dict[str, str] = {}  # the running test's server URL, set by conftest.py's autouse fixture


def use_server(url: str) -> None:
    """Points the stores built from now on at url and wipes its items."""
    _server["url"] = url
    with KgmemClient(url) as c:
        for ns in c.list_item_namespaces():
            c.purge_namespace(ns)


def kgmem_index(index: dict[str, Any] | None) -> dict[str, Any] | None:
    """LangGraph's index configuration as KgmemStore takes it: the fields to
    embed; the server embeds with its own model, so ``dims``, ``embed`` and
    the vector index's settings are LangGraph-store-specific and dropped."""
    if not index:
        return None
    fields = index.get("fields", index.get("text_fields"))
    return {"fields": list(fields)} if fields else None


def new_store(index: dict[str, Any] | None = None, **_: Any) -> KgmemStore:
    """A KgmemStore where the suite built an InMemoryStore/SqliteStore."""
    return KgmemStore(url=_server["url"], index=kgmem_index(index))


# The Postgres suites import these from their conftest.py, which needs a
# Postgres server; their values, as langgraph-checkpoint-postgres 3.2.0 has them.
VECTOR_TYPES = ["vector", "halfvec"]
