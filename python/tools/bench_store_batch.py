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
    print(f"{len(results)} calls in {took:.2f} s ({len(results) / took:.0f} calls/s)")


if __name__ == "__main__":
    url = sys.argv[1]
    n, m = (int(sys.argv[2]), int(sys.argv[3])) if len(sys.argv) > 3 else (100, 10)
    asyncio.run(run(url, n, m))
