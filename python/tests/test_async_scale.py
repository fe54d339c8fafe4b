"""The async path under load: many concurrent calls are bounded in the
client (never more requests in flight than its connection pool holds, so
none times out waiting for a connection), and LangGraph's large async
batches complete."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from langgraph.store.base import GetOp, PutOp

from kgmem import AsyncKgmemClient
from kgmem.langgraph import KgmemStore

from .conftest import Server, Servers


class CountingTransport(httpx.AsyncBaseTransport):
    """A real HTTP transport that records the most requests in flight at once."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport(limits=httpx.Limits(max_connections=1000, max_keepalive_connections=1000))
        self.now = self.most = self.total = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.now += 1
        self.total += 1
        self.most = max(self.most, self.now)
        try:
            resp = await self.inner.handle_async_request(request)
            await resp.aread()
            return resp
        finally:
            self.now -= 1

    async def aclose(self) -> None:
        await self.inner.aclose()


@pytest.mark.parametrize("max_connections", [1, 4])
async def test_concurrent_calls_are_bounded(server: Server, root: str, max_connections: int) -> None:
    transport = CountingTransport()
    async with AsyncKgmemClient(server.url, max_connections=max_connections,
                                http=httpx.AsyncClient(transport=transport, timeout=30)) as c:
        store = KgmemStore(url=server.url, async_client=c)
        await asyncio.gather(*(store.aput((root, "b"), f"k{i}", {"i": i}) for i in range(200)))
        got = await asyncio.gather(*(store.aget((root, "b"), f"k{i}") for i in range(200)))
    assert [g.value["i"] if g else None for g in got] == list(range(200))
    assert transport.total == 400
    assert transport.most == max_connections


async def test_thousands_of_concurrent_aputs(servers: Servers, root: str) -> None:
    # 2,000 concurrent aput ended in httpx.PoolTimeout with one request per
    # call and no bound.
    store = KgmemStore(url=servers.get("sqlite+hnsw").url)
    ns = (root, "many")
    await asyncio.gather(*(store.aput(ns, f"k{i}", {"i": i}) for i in range(2000)))
    got = await asyncio.gather(*(store.aget(ns, f"k{i}") for i in range(2000)))
    assert [g.value["i"] if g else None for g in got] == list(range(2000))


async def test_large_async_batches(servers: Servers, root: str) -> None:
    # As LangGraph's test_large_batches_async, at its smaller size.
    store = KgmemStore(url=servers.get("sqlite+hnsw").url)
    n = 6000
    ops: list[Any] = [PutOp((root, "big", str(i % 10)), f"k{i}", {"i": i}) for i in range(n)]
    assert await store.abatch(ops) == [None] * n
    got = await store.abatch([GetOp((root, "big", str(i % 10)), f"k{i}") for i in range(n)])
    assert [g.value["i"] if g else None for g in got] == list(range(n))
