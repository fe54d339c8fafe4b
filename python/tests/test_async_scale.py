"""The async path under load: the async calls made at once are grouped
into batches of item operations (POST /v1/items/batch, at most 1,000 each),
the batch requests are bounded in the client (never more in flight than its
connection pool holds, so none times out waiting for a connection), and
LangGraph's large async batches complete."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest
from langgraph.store.base import GetOp, PutOp

from kgmem import AsyncKgmemClient, KgmemClient, KgmemError
from kgmem.langgraph import KgmemStore

from .conftest import Server, Servers


class CountingSyncTransport(httpx.HTTPTransport):
    """A real HTTP transport that counts the requests sent."""

    def __init__(self) -> None:
        super().__init__()
        self.total = 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.total += 1
        return super().handle_request(request)


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
        await asyncio.gather(*(store.aput((root, "b"), f"k{i}", {"i": i}) for i in range(2500)))
        got = await asyncio.gather(*(store.aget((root, "b"), f"k{i}") for i in range(2500)))
    assert [g.value["i"] if g else None for g in got] == list(range(2500))
    # 2,500 puts, then 2,500 gets: ten batch requests of 250 each.
    assert transport.total == 20
    assert transport.most == min(max_connections, 10)


async def test_one_callers_error_is_its_own(server: Server, root: str) -> None:
    # The calls made at once run as one batch; the server refuses a batch
    # with a malformed operation whole, so the store resends its
    # operations one by one and only the malformed call fails.
    store = KgmemStore(url=server.url)
    await store.aput((root, "e"), "k", {"n": 1})
    got = await asyncio.gather(
        store.aget((root, "e"), "k"),
        store.asearch((root, "e"), filter={"n": {"$near": 1}}),
        store.aput((root, "e"), "k2", {"n": 2}),
        store.asearch((root, "e"), filter={"n": {"$gte": 1}}),
        return_exceptions=True,
    )
    assert got[0] is not None and got[0].value == {"n": 1}
    assert isinstance(got[1], KgmemError) and got[1].status == 422 and got[1].field == "filter.n.$near"
    assert got[2] is None
    assert [i.key for i in got[3]] == ["k"]  # reads see the store before the batch's writes
    assert (await store.aget((root, "e"), "k2")) is not None


def test_sync_batch_sends_item_operations_in_batches(server: Server, root: str) -> None:
    transport = CountingSyncTransport()
    with KgmemClient(server.url, http=httpx.Client(transport=transport, timeout=30)) as c:
        store = KgmemStore(url=server.url, client=c)
        ops: list[Any] = [PutOp((root, "s"), f"k{i}", {"i": i}) for i in range(1500)]
        assert store.batch(ops) == [None] * 1500
        got = store.batch([GetOp((root, "s"), f"k{i}") for i in range(1500)] + [GetOp((root, "s"), "none")])
    assert [g.value["i"] if g else None for g in got] == [*range(1500), None]
    assert transport.total == 13  # 1,500 puts: 6 batches of 250; 1,501 gets: 6, and the last one alone


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


def test_a_batch_over_the_body_limit_is_split(kgmem_bin: Path, tmp_path: Path, root: str) -> None:
    # A batch request over the server's --max-body-bytes is a 413: the
    # store halves it until each half fits, never one request per put.
    srv = Server(kgmem_bin, tmp_path / "data", "sqlite+hnsw", "--max-body-bytes", "20000")
    try:
        transport = CountingSyncTransport()
        with KgmemClient(srv.url, http=httpx.Client(transport=transport, timeout=30)) as c:
            store = KgmemStore(url=srv.url, client=c)
            store.batch([PutOp((root, "big"), f"k{i}", {"text": f"{i} " + "x" * 400}) for i in range(200)])
            got = store.batch([GetOp((root, "big"), f"k{i}") for i in range(200)])
        assert [g.value["text"].split()[0] if g else None for g in got] == [str(i) for i in range(200)]
        assert 200 * 400 > 20000 and transport.total < 100
    finally:
        srv.stop()
