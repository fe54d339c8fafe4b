"""Times KgmemStore's async path on LangGraph's test_large_batches_async
workload: N keys x M rounds of concurrent aput, aget, alist_namespaces,
asearch, aput and adelete (6 x N x M calls), against a running server.

    python tools/bench_store_batch.py http://127.0.0.1:8080 [N M]
"""

from __future__ import annotations

import asyncio
import sys
import time
import uuid

from kgmem.langgraph import KgmemStore


async def run(url: str, n: int, m_rounds: int) -> None:
    store = KgmemStore(url=url)
    root = "bench" + uuid.uuid4().hex[:8]
    coros = []
    for m in range(m_rounds):
        for i in range(n):
            ns = (root, "foo", "bar", "baz", str(m % 2))
            coros.append(store.aput(ns, f"key{i}", value={"foo": "bar" + str(i)}))
            coros.append(asyncio.create_task(store.aget(ns, f"key{i}")))
            coros.append(asyncio.create_task(store.alist_namespaces(prefix=None, max_depth=m + 1)))
            coros.append(asyncio.create_task(store.asearch((root,))))
            coros.append(store.aput(ns, f"key{i}", value={"foo": "bar" + str(i)}))
            coros.append(store.adelete(ns, f"key{i}"))
    start = time.perf_counter()
    results = await asyncio.gather(*coros)
    took = time.perf_counter() - start
    assert len(results) == 6 * n * m_rounds
    print(f"LangGraph's mix: {len(results)} calls in {took:.2f} s ({len(results) / took:.0f} calls/s)")

    # Then as many distinct items put, and read back, concurrently.
    count = n * m_rounds
    start = time.perf_counter()
    await asyncio.gather(*(store.aput((root, "p", str(i % 10)), f"k{i}", {"i": i}) for i in range(count)))
    put = time.perf_counter() - start
    start = time.perf_counter()
    got = await asyncio.gather(*(store.aget((root, "p", str(i % 10)), f"k{i}") for i in range(count)))
    get = time.perf_counter() - start
    assert [g.value["i"] if g else None for g in got] == list(range(count))
    print(f"{count} distinct aput in {put:.2f} s, {count} aget in {get:.2f} s")


if __name__ == "__main__":
    url = sys.argv[1]
    n, m = (int(sys.argv[2]), int(sys.argv[3])) if len(sys.argv) > 3 else (100, 10)
    asyncio.run(run(url, n, m))
