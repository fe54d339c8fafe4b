"""The sync and async clients against a real server: every route of the
OpenAPI document, errors as exceptions, and retries."""

from __future__ import annotations

import re
import socket
import time
from pathlib import Path

import httpx
import pytest

from kgmem import (
    AsyncKgmemClient,
    InvalidRequestError,
    KgmemClient,
    KgmemError,
    NotFoundError,
    RateLimitedError,
    UnreachableError,
)
from kgmem.client import _calls

from .conftest import Server


def test_every_route_has_a_method(client: KgmemClient) -> None:
    # The served document is the server's route table (api/routes.go), as
    # go generate publishes it: every row is an operation here.
    doc = client.openapi()
    ops = {op["operationId"] for path in doc["paths"].values() for verb, op in path.items() if verb in {"get", "post", "put", "delete"}}
    # The Python method of an operation is its operationId in snake case
    # (docs/reference/vocabulary.md).
    names = [re.sub(r"(?<!^)(?=[A-Z])", "_", op).lower() for op in sorted(ops)]
    for name in names:
        assert callable(getattr(KgmemClient, name, None)), f"KgmemClient has no {name}"
        assert callable(getattr(AsyncKgmemClient, name, None)), f"AsyncKgmemClient has no {name}"
        assert callable(getattr(_calls, name, None)), f"_calls has no {name}"



def test_vocabulary_names_python_methods() -> None:
    """docs/reference/vocabulary.md's Python column names real methods."""
    from kgmem.instructions import Instructions

    doc = (Path(__file__).resolve().parents[2] / "docs/reference/vocabulary.md").read_text()
    tables: list[list[list[str]]] = []
    for block in re.split(r"\n(?!\|)", doc):
        rows = [line for line in block.splitlines() if line.startswith("|") and not line.startswith("|---")]
        if rows:
            tables.append(rows[1:])
    operations, procedures = tables[0], tables[1]
    for row in operations:
        for name in re.findall(r"`([^`]*)`", row.strip("|").split("|")[3]):
            assert callable(getattr(KgmemClient, name, None)) and callable(getattr(AsyncKgmemClient, name, None)), name
    for row in procedures:
        for name in re.findall(r"`([^`]*)`", row.strip("|").split("|")[2]):
            assert callable(getattr(Instructions, name, None)), name

def test_routes_sync(client: KgmemClient, root: str) -> None:
    ns = f"{root}/alice"
    assert client.healthz()["status"] == "ok"
    assert client.readyz()["status"] == "ready"
    assert "go_goroutines" in client.metrics()
    res, created = client.add_memories(ns, [{"id": "m1", "name": "Alice", "content": "I moved to Porto last spring.", "timestamp": "2024-05-01T10:00:00Z"}], thread_id="t1")
    assert created and res["episodes"][0]["content"] == "I moved to Porto last spring."
    job, accepted = client.add_memories(ns, [{"id": "m2", "content": "Async hello", "timestamp": "2024-05-02T10:00:00Z"}], thread_id="t1", mode="async")
    assert not accepted and job["id"]
    deadline = time.monotonic() + 30
    while client.get_job(ns, job["id"])["status"] != "succeeded":
        assert time.monotonic() < deadline, "the async ingest job did not finish within 30 s"
        time.sleep(0.05)
    assert any(j["id"] == job["id"] for j in client.list_jobs(ns))
    facts = client.add_facts(ns, [{"subject": "Alice", "predicate": "lives_in", "object": "Porto", "fact": "Alice lives in Porto."}])
    fact_id = facts["facts"][0]["fact"]["id"]
    assert client.get_fact(ns, fact_id)["id"] == fact_id
    assert client.list_facts(ns, entity="Alice", current_only=True)["facts"]
    entities = client.list_entities(ns, q="Alice")["entities"]
    assert client.get_entity(ns, entities[0]["id"])["name"] == "Alice"
    assert client.list_episodes(ns)["episodes"]
    found = client.search(ns, "Where does Alice live?", include=["facts"])
    assert found["facts"][0]["id"] == fact_id
    messages_only = client.search(ns, "Where does Alice live?", recipe="messages")
    assert messages_only["episodes"] and not messages_only["facts"]
    assert ns in client.list_namespaces()["namespaces"]
    refs = [{"kind": "fact", "id": fact_id}]
    assert client.feedback(ns, refs)["reinforced"] == 1
    assert client.pin(ns, refs)["pinned"] is True
    assert client.restore(ns, refs)
    assert client.strength(ns, refs)[0]["id"] == fact_id
    settings = client.put_settings(ns, {"writes": {"disable_updates": True}})
    assert client.get_settings(ns) == settings
    assert "facts" in client.sweep(ns)
    item, created = client.put_item(ns, "note", {"content": "Alice likes tea"}, index=["content"])
    assert created and item["text"] == "Alice likes tea"
    assert client.get_item(ns, "note")["value"] == {"content": "Alice likes tea"}
    assert client.search_items(root, query="tea")["items"][0]["key"] == "note"
    assert client.list_item_namespaces(root) == [ns]
    client.delete_item(ns, "note")
    results = client.batch_items([
        {"op": "put", "namespace": ns, "key": "b", "value": {"content": "Alice likes coffee"}},
        {"op": "get", "namespace": ns, "key": "b"},
        {"op": "get", "namespace": ns, "key": "none"},
        {"op": "search", "namespace_prefix": root, "query": "coffee"},
        {"op": "delete", "namespace": ns, "key": "b"},
    ])
    assert [r["status"] for r in results] == [201, 200, 404, 200, 204]
    assert results[1]["item"]["value"] == {"content": "Alice likes coffee"}
    assert results[2]["error"]["status"] == 404
    assert [i["key"] for i in results[3]["items"]] == ["b"]
    client.delete_fact(ns, fact_id)
    assert client.purge_namespace(ns)["deleted"]["episodes"] == 2


async def test_routes_async(server: Server, root: str) -> None:
    ns = f"{root}/bob"
    async with AsyncKgmemClient(server.url) as c:
        assert (await c.healthz())["status"] == "ok"
        _, created = await c.put_item(ns, "k", {"content": "Bob plays the cello"})
        assert created
        _, created = await c.put_item(ns, "k", {"content": "Bob plays the oboe"})
        assert not created
        assert (await c.get_item(ns, "k"))["value"] == {"content": "Bob plays the oboe"}
        found = await c.search_items(root, query="oboe")
        assert found["items"][0]["score"]["final"] > 0
        await c.delete_item(ns, "k")
        with pytest.raises(NotFoundError):
            await c.get_item(ns, "k")


def test_errors_carry_status_field_and_detail(client: KgmemClient, root: str) -> None:
    with pytest.raises(NotFoundError) as nf:
        client.get_item(f"{root}/x", "missing")
    assert nf.value.status == 404 and nf.value.field == "key" and "missing" in nf.value.detail
    with pytest.raises(InvalidRequestError) as bad:
        client.put_item("bad//namespace", "k", {"v": 1})
    assert bad.value.status == 400 and bad.value.field == "namespace"
    with pytest.raises(KgmemError) as conflict:
        client.put_item(f"{root}/x", "k", {"v": "text"}, extract=True)
    assert conflict.value.status == 409 and "LLM" in conflict.value.detail
    with pytest.raises(NotFoundError):
        client.get_item(f"{root}/x", "k")  # the refused put stored nothing
    with pytest.raises(InvalidRequestError) as unproc:
        client.search_items(root, filter={"score": {"$like": 1}})
    assert unproc.value.status == 422 and unproc.value.field == "filter.score.$like"


def test_retries_honour_retry_after() -> None:
    calls: list[float] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        if len(calls) < 3:
            return httpx.Response(429, headers={"Retry-After": "0"}, json={"title": "Too Many Requests", "detail": "slow down"})
        return httpx.Response(200, json={"status": "ok"})

    c = KgmemClient("http://kgmem.test", http=httpx.Client(transport=httpx.MockTransport(handler)))
    assert c.healthz() == {"status": "ok"} and len(calls) == 3
    calls.clear()
    c = KgmemClient("http://kgmem.test", max_retries=1, http=httpx.Client(transport=httpx.MockTransport(handler)))
    with pytest.raises(RateLimitedError) as err:
        c.healthz()
    assert err.value.status == 429 and err.value.detail == "slow down" and len(calls) == 2


def _closed_port_url() -> str:
    """The URL of a loopback port nothing listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def test_no_server_raises_unreachable() -> None:
    url = _closed_port_url()
    with KgmemClient(url) as c, pytest.raises(UnreachableError) as err:
        c.healthz()
    assert isinstance(err.value, KgmemError) and err.value.status == 0
    assert isinstance(err.value.__cause__, httpx.ConnectError)
    assert url in str(err.value) and err.value.url == url


async def test_no_server_raises_unreachable_async() -> None:
    url = _closed_port_url()
    async with AsyncKgmemClient(url) as c:
        with pytest.raises(UnreachableError) as err:
            await c.search("demo/x", "anything")
    assert isinstance(err.value.__cause__, httpx.ConnectError) and url in str(err.value)
