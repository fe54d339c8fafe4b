"""LangGraph store semantics, written from LangGraph's documentation of
BaseStore and run against LangGraph's own InMemoryStore and against
KgmemStore: a test here encodes LangGraph's behaviour, not kgmem's, and
must pass on both."""

from __future__ import annotations

from datetime import datetime

import pytest
from langgraph.store.base import BaseStore, InvalidNamespaceError


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
