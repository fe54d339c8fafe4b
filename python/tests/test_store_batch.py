"""KgmemStore's batches where kgmem differs from LangGraph's InMemoryStore:
what it refuses is refused before anything is written."""

from __future__ import annotations

import pytest
from langgraph.store.base import PutOp

from kgmem.langgraph import KgmemStore

from .conftest import Server


@pytest.mark.parametrize("run", ["batch", "abatch"])
async def test_a_ttl_refuses_the_whole_batch(server: Server, root: str, run: str) -> None:
    store = KgmemStore(url=server.url)
    ops = [PutOp((root, "ttl"), "a", {"v": 1}), PutOp((root, "ttl"), "b", {"v": 2}, ttl=5.0)]
    with pytest.raises(NotImplementedError, match="TTL"):
        if run == "batch":
            store.batch(ops)
        else:
            await store.abatch(ops)
    assert await store.aget((root, "ttl"), "a") is None
