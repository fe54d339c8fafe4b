"""KgmemStore's batches where kgmem differs from LangGraph's InMemoryStore:
what it refuses is refused before anything is written."""

from __future__ import annotations

import pytest
from langgraph.store.base import PutOp

from kgmem.langgraph import KgmemStore

from .conftest import Server


@pytest.mark.parametrize("run", ["batch", "abatch"])
@pytest.mark.parametrize("ttl", [-1.0, float("nan"), "5", True])
async def test_a_bad_ttl_refuses_the_whole_batch(server: Server, root: str, run: str, ttl: object) -> None:
    store = KgmemStore(url=server.url)
    ops = [PutOp((root, "ttl"), "a", {"v": 1}), PutOp((root, "ttl"), "b", {"v": 2}, ttl=ttl)]  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="ttl"):
        if run == "batch":
            store.batch(ops)
        else:
            await store.abatch(ops)
    assert await store.aget((root, "ttl"), "a") is None
