"""What the vendored LangGraph suites build their stores with: KgmemStore on
the live test server of the running test's backend pair, its items wiped
before each test (LangGraph's fixtures give every test a fresh store).

This file and conftest.py are kgmem's; the suites beside them are
LangGraph's, changed only where they build a store (see README.md).
"""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any

from kgmem import KgmemClient, NotFoundError
from kgmem.langgraph import AsyncKgmemStore, KgmemStore
from kgmem.namespaces import to_namespace

_server: dict[str, str] = {}  # the running test's server URL, set by conftest.py's autouse fixture


def use_server(url: str) -> None:
    """Points the stores built from now on at url and wipes its items."""
    _server["url"] = url
    with KgmemClient(url) as c:
        for ns in c.list_item_namespaces(include_expired=True):  # expired items too: no sweeper may have run
            c.purge_namespace(ns)


def kgmem_index(index: dict[str, Any] | None) -> dict[str, Any] | None:
    """LangGraph's index configuration as KgmemStore takes it: the fields to
    embed; the server embeds with its own model, so ``dims``, ``embed`` and
    the vector index's settings are LangGraph-store-specific and dropped."""
    if not index:
        return None
    fields = index.get("fields", index.get("text_fields"))
    return {"fields": list(fields)} if fields else None


def new_store(index: dict[str, Any] | None = None, ttl: dict[str, Any] | None = None, **_: Any) -> KgmemStore:
    """A KgmemStore where the suite built an InMemoryStore/SqliteStore."""
    return KgmemStore(url=_server["url"], index=kgmem_index(index), ttl=ttl)


def new_async_store(ttl: dict[str, Any] | None = None) -> AsyncKgmemStore:
    """A KgmemStore whose TTL sweeper methods are coroutines, where the
    suite built an AsyncPostgresStore."""
    return AsyncKgmemStore(url=_server["url"], ttl=ttl)


# What the Postgres suites' helpers did in SQL, done through the API.

def _stored(store: KgmemStore, ns: tuple[str, ...], key: str) -> dict[str, Any] | None:
    """The item as stored, expired or not, without refreshing it."""
    try:
        return store.client.get_item(to_namespace(ns), key, refresh_ttl=False, include_expired=True)
    except NotFoundError:
        return None


def expire_now(store: KgmemStore, ns: tuple[str, ...], key: str) -> None:
    """Expires the item now, unswept: a put of its value with ttl 0 (the
    suites backdate its expires_at in SQL)."""
    it = _stored(store, ns, key)
    assert it is not None, f"no item {ns}/{key}"
    store.client.put_item(to_namespace(ns), key, it["value"], ttl=0)


def row_exists(store: KgmemStore, ns: tuple[str, ...], key: str) -> bool:
    """Whether the item is stored, expired or not."""
    return _stored(store, ns, key) is not None


def stored_expires_at(store: KgmemStore, ns: tuple[str, ...], key: str) -> datetime | None:
    """The item's expiry as stored."""
    it = _stored(store, ns, key)
    assert it is not None, f"no item {ns}/{key}"
    at = it.get("expires_at")
    return None if at is None else datetime.fromisoformat(at.replace("Z", "+00:00"))


def _expired(store: KgmemStore, ns: tuple[str, ...], key: str) -> bool:
    """Whether the item is stored but hidden from reads, expired."""
    try:
        store.client.get_item(to_namespace(ns), key, refresh_ttl=False)
        return False
    except NotFoundError:
        return row_exists(store, ns, key)


def _instant(s: str) -> datetime:
    return datetime.fromisoformat(s.replace("Z", "+00:00"))


def set_update_order(store: KgmemStore, ns: tuple[str, ...], seconds_ago: dict[str, int]) -> None:
    """Puts the items again, each with its value and TTL (an expired one
    stays expired), so that their updated_at orders them as seconds_ago
    does (the suites backdate updated_at in SQL): the oldest first, each
    put after the previous one's instant (the server keeps milliseconds)."""
    last: datetime | None = None
    for key in sorted(seconds_ago, key=lambda k: -seconds_ago[k]):
        it = _stored(store, ns, key)
        assert it is not None, f"no item {ns}/{key}"
        ttl = 0 if _expired(store, ns, key) else it.get("ttl")
        deadline = time.monotonic() + 10
        while True:
            put, _ = store.client.put_item(to_namespace(ns), key, it["value"], ttl=ttl)
            if last is None or _instant(put["updated_at"]) > last:
                last = _instant(put["updated_at"])
                break
            assert time.monotonic() < deadline, "the server's clock did not move"


# The Postgres suites import these from their conftest.py, which needs a
# Postgres server; their values, as langgraph-checkpoint-postgres 3.2.0 has them.
VECTOR_TYPES = ["vector", "halfvec"]
