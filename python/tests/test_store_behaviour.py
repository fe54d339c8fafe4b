"""LangGraph store semantics, written from LangGraph's documentation of
BaseStore and run against LangGraph's own InMemoryStore and against
KgmemStore: a test here encodes LangGraph's behaviour, not kgmem's, and
must pass on both."""

from __future__ import annotations

import asyncio
from datetime import datetime

import pytest
from langgraph.store.base import BaseStore, InvalidNamespaceError, PutOp


def test_put_get_round_trip(store: BaseStore, root: str) -> None:
    ns = (root, "users", "alice")
    store.put(ns, "prefs", {"theme": "dark", "n": 3, "nested": {"tags": ["a", "b"]}})
    item = store.get(ns, "prefs")
    assert item is not None
    assert item.value == {"theme": "dark", "n": 3, "nested": {"tags": ["a", "b"]}}
    assert item.key == "prefs"
    assert tuple(item.namespace) == ns
    assert isinstance(item.created_at, datetime) and isinstance(item.updated_at, datetime)
    assert item.updated_at >= item.created_at


def test_get_missing_is_none(store: BaseStore, root: str) -> None:
    assert store.get((root, "nobody"), "nothing") is None


def test_put_overwrites(store: BaseStore, root: str) -> None:
    ns = (root, "u")
    store.put(ns, "k", {"v": 1})
    first = store.get(ns, "k")
    store.put(ns, "k", {"w": 2})
    second = store.get(ns, "k")
    assert first is not None and second is not None
    assert second.value == {"w": 2}
    assert second.updated_at >= first.updated_at


def test_delete(store: BaseStore, root: str) -> None:
    ns = (root, "u")
    store.put(ns, "k", {"v": 1})
    store.delete(ns, "k")
    assert store.get(ns, "k") is None
    store.delete(ns, "k")  # deleting what is not there is no error


def test_hostile_labels_round_trip(store: BaseStore, root: str) -> None:
    ns = (root, "user 42/ü", "a:b#c%2F", "日本", "-_")
    store.put(ns, "key with spaces/and slashes", {"x": "y"})
    item = store.get(ns, "key with spaces/and slashes")
    assert item is not None and tuple(item.namespace) == ns
    found = store.search((root,))
    assert [tuple(i.namespace) for i in found] == [ns]


@pytest.mark.parametrize("ns", [(), ("a.b",), ("",), ("langgraph", "x")])
def test_invalid_namespaces_are_refused(store: BaseStore, ns: tuple[str, ...]) -> None:
    with pytest.raises(InvalidNamespaceError):
        store.put(ns, "k", {"v": 1})


def test_search_spans_the_prefix_only(store: BaseStore, root: str) -> None:
    store.put((root, "memories", "alice"), "1", {"text": "alpha"})
    store.put((root, "memories", "bob"), "2", {"text": "beta"})
    store.put((root, "memories"), "3", {"text": "gamma"})
    store.put((root, "memoriesx"), "4", {"text": "delta"})
    keys = {i.key for i in store.search((root, "memories"))}
    assert keys == {"1", "2", "3"}
    assert {i.key for i in store.search((root, "memories", "alice"))} == {"1"}
    assert {i.key for i in store.search((root,), limit=100)} == {"1", "2", "3", "4"}
    assert all(i.score is None for i in store.search((root,)))  # no query: nothing is scored


def test_search_filters(store: BaseStore, root: str) -> None:
    ns = (root, "f")
    store.put(ns, "a", {"kind": "food", "score": 8, "meta": {"lang": "en"}})
    store.put(ns, "b", {"kind": "food", "score": 2, "meta": {"lang": "fr"}})
    store.put(ns, "c", {"kind": "sport", "score": 5})
    keys = lambda f: {i.key for i in store.search((root,), filter=f)}  # noqa: E731
    assert keys({"kind": "food"}) == {"a", "b"}
    assert keys({"kind": "food", "score": 8}) == {"a"}
    assert keys({"score": {"$gt": 4}}) == {"a", "c"}
    assert keys({"score": {"$gte": 5, "$lt": 8}}) == {"c"}
    assert keys({"score": {"$lte": 2}}) == {"b"}
    assert keys({"kind": {"$ne": "food"}}) == {"c"}
    assert keys({"kind": {"$eq": "sport"}}) == {"c"}
    assert keys({"meta": {"lang": "fr"}}) == {"b"}
    assert keys({"kind": "nothing"}) == set()


def test_search_pages(store: BaseStore, root: str) -> None:
    ns = (root, "p")
    for i in range(7):
        store.put(ns, f"k{i}", {"i": i})
    pages = [store.search((root,), limit=3, offset=o) for o in (0, 3, 6)]
    assert [len(p) for p in pages] == [3, 3, 1]
    assert {i.key for p in pages for i in p} == {f"k{i}" for i in range(7)}


def test_query_ranks_the_matching_item_first(store: BaseStore, root: str) -> None:
    ns = (root, "q")
    store.put(ns, "bike", {"text": "Alice rides her red bicycle to work every morning"})
    store.put(ns, "tea", {"text": "Alice drinks green tea in the afternoon"})
    store.put(ns, "cat", {"text": "Alice has a cat called Miso"})
    found = store.search((root,), query="red bicycle morning")
    assert found and found[0].key == "bike"
    assert found[0].score is not None
    assert {i.key for i in found} == {"bike", "tea", "cat"}


def test_index_false_is_never_scored(store: BaseStore, root: str) -> None:
    ns = (root, "i")
    store.put(ns, "hidden", {"text": "secret bicycle lock code"}, index=False)
    store.put(ns, "shown", {"text": "bicycle repair shop"})
    found = {i.key: i for i in store.search((root,), query="bicycle lock code")}
    assert found["shown"].score is not None
    assert "hidden" not in found or found["hidden"].score is None


def test_index_fields(store: BaseStore, root: str) -> None:
    ns = (root, "x")
    store.put(ns, "a", {"title": "ocean kayak trip", "body": "unrelated words"}, index=["title"])
    store.put(ns, "b", {"title": "grocery list", "body": "ocean kayak trip"}, index=["title"])
    found = store.search((root,), query="ocean kayak trip")
    assert found[0].key == "a"


def test_list_namespaces(store: BaseStore, root: str) -> None:
    for ns in [(root, "a", "x"), (root, "a", "y"), (root, "b", "x"), (root, "b", "z", "deep")]:
        store.put(ns, "k", {"v": 1})
    assert store.list_namespaces(prefix=(root,)) == [(root, "a", "x"), (root, "a", "y"), (root, "b", "x"), (root, "b", "z", "deep")]
    assert store.list_namespaces(prefix=(root, "a")) == [(root, "a", "x"), (root, "a", "y")]
    assert store.list_namespaces(prefix=(root,), suffix=("x",)) == [(root, "a", "x"), (root, "b", "x")]
    assert store.list_namespaces(prefix=(root, "*", "x")) == [(root, "a", "x"), (root, "b", "x")]
    assert store.list_namespaces(prefix=(root,), max_depth=2) == [(root, "a"), (root, "b")]
    assert store.list_namespaces(prefix=(root,), limit=2, offset=1) == [(root, "a", "y"), (root, "b", "x")]


async def test_async_methods(store: BaseStore, root: str) -> None:
    ns = (root, "async")
    await store.aput(ns, "k", {"text": "asynchronous hello"})
    item = await store.aget(ns, "k")
    assert item is not None and item.value == {"text": "asynchronous hello"}
    found = await store.asearch((root,), query="asynchronous hello")
    assert [i.key for i in found] == ["k"]
    assert await store.alist_namespaces(prefix=(root,)) == [ns]
    await store.adelete(ns, "k")
    assert await store.aget(ns, "k") is None


def test_batch_mixes_operations(store: BaseStore, root: str) -> None:
    from langgraph.store.base import GetOp, ListNamespacesOp, MatchCondition, PutOp, SearchOp

    ns = (root, "batch")
    store.batch([PutOp(ns, "a", {"v": 1}), PutOp(ns, "b", {"v": 2})])
    got, found, listed = store.batch([
        GetOp(ns, "a"),
        SearchOp((root,), filter={"v": 2}),
        ListNamespacesOp(match_conditions=(MatchCondition("prefix", (root,)),)),
    ])
    assert got is not None and got.value == {"v": 1}
    assert [i.key for i in found] == ["b"]
    assert listed == [ns]


def test_batch_reads_before_writes_last_write_wins(store: BaseStore, root: str) -> None:
    from langgraph.store.base import GetOp, PutOp

    ns = (root, "order")
    store.put(ns, "k", {"v": 0})
    _, got, *_ = store.batch([PutOp(ns, "k", {"v": 1}), GetOp(ns, "k"), PutOp(ns, "k", {"v": 2}), PutOp(ns, "gone", {"v": 3}),
                              PutOp(ns, "gone", None)])
    assert got is not None and got.value == {"v": 0}  # a batch's reads see the store before its writes
    item = store.get(ns, "k")
    assert item is not None and item.value == {"v": 2}
    assert store.get(ns, "gone") is None


def test_search_any_limit_pages(store: BaseStore, root: str) -> None:
    ns = (root, "many")
    store.batch([PutOp(ns, f"k{i:03}", {"i": i}) for i in range(130)])
    assert len(store.search(ns, limit=200)) == 130
    assert len(store.search(ns, limit=200, offset=50)) == 80
    assert {i.key for i in store.search(ns, limit=1000)} == {f"k{i:03}" for i in range(130)}
    assert store.search(ns, limit=0) == []
    assert store.search(ns, limit=0, query="anything") == []
    assert store.search(ns, offset=200_000) == []


def test_search_empty_prefix_past_a_hundred(store: BaseStore, root: str) -> None:
    # The empty prefix spans every namespace on the server (other tests'
    # too): the filter keeps this test's items.
    store.batch([PutOp((root, "r1"), f"k{i:03}", {"tag": root, "i": i}) for i in range(130)]
                + [PutOp((root + "b",), f"b{i}", {"tag": root, "i": 1000 + i}) for i in range(5)])
    pages = [store.search((), filter={"tag": root}, limit=10, offset=o) for o in (0, 100, 130)]
    assert [len(p) for p in pages] == [10, 10, 5]
    everything = store.search((), filter={"tag": root}, limit=500)
    assert len(everything) == 135 and len({(i.namespace, i.key) for i in everything}) == 135


@pytest.mark.parametrize(("cond", "want"), [
    ({"$lt": float("inf")}, {"a", "b", "c"}),
    ({"$lte": float("inf")}, {"a", "b", "c"}),
    ({"$gt": float("-inf")}, {"a", "b", "c"}),
    ({"$gt": float("inf")}, set()),
    ({"$lt": float("-inf")}, set()),
    ({"$gt": 0, "$lt": float("inf")}, {"a", "b"}),
    ({"$eq": float("inf")}, set()),
    ({"$ne": float("inf")}, {"a", "b", "c"}),
    ({"$lt": float("nan")}, set()),
    (float("inf"), set()),
])
def test_search_filters_with_infinities(store: BaseStore, root: str, cond: object, want: set[str]) -> None:
    ns = (root, "inf")
    store.batch([PutOp(ns, "a", {"price": 1}), PutOp(ns, "b", {"price": 1e300}), PutOp(ns, "c", {"price": -5.5})])
    assert {i.key for i in store.search((root,), filter={"price": cond})} == want


@pytest.mark.parametrize("key", ["", "\u2400", "\u2400x", "x\u2400"])
def test_any_key_round_trips(store: BaseStore, root: str, key: str) -> None:
    ns = (root, "keys")
    store.put(ns, key, {"v": key})
    store.put(ns, "plain", {"v": "plain"})
    item = store.get(ns, key)
    assert item is not None and item.key == key and item.value == {"v": key}
    assert {i.key for i in store.search(ns)} == {key, "plain"}
    store.delete(ns, key)
    assert store.get(ns, key) is None
    assert {i.key for i in store.search(ns)} == {"plain"}


async def test_abatch_reads_before_writes(store: BaseStore, root: str) -> None:
    from langgraph.store.base import GetOp

    ns = (root, "aorder")
    await store.aput(ns, "k", {"v": 0})
    results = await store.abatch([PutOp(ns, "k", {"v": i}) for i in range(1, 50)] + [GetOp(ns, "k")])
    assert results[-1] is not None and results[-1].value == {"v": 0}
    item = await store.aget(ns, "k")
    assert item is not None and item.value == {"v": 49}  # the last write of a key wins, whatever the concurrency


def test_async_from_two_event_loops(store: BaseStore, root: str) -> None:
    ns = (root, "loops")
    asyncio.run(store.aput(ns, "k", {"v": 1}))
    item = asyncio.run(store.aget(ns, "k"))
    assert item is not None and item.value == {"v": 1}
    assert [i.key for i in asyncio.run(store.asearch(ns))] == ["k"]
