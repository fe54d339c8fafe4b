"""The documented differences behind the marks of LangGraph's vendored store
suites (tests/langgraph_suites/marks.py), each shown on KgmemStore: a mark
is only as good as the behaviour it names."""

from __future__ import annotations

import pytest

from kgmem import KgmemClient
from kgmem.langgraph import KgmemStore
from kgmem.namespaces import to_namespace

from .conftest import Server


def test_score_is_kgmems_final_score(server: Server, root: str) -> None:
    store = KgmemStore(url=server.url)
    store.put((root, "s"), "a", {"text": "the cat sat on the mat"})
    store.put((root, "s"), "b", {"text": "stock prices fell sharply"})
    found = store.search((root, "s"), query="cat on a mat", limit=1)
    with KgmemClient(server.url) as c:
        raw = c.search_items(to_namespace((root, "s")), query="cat on a mat", limit=1, reinforce=False)
    assert found[0].key == "a" and raw["items"][0]["key"] == "a"
    assert found[0].score is not None and 0 < found[0].score
    assert raw["items"][0]["score"]["final"] > 0  # the same kind of number: fused, not a cosine


@pytest.mark.parametrize("index", [{"dims": 8, "embed": lambda texts: [[0.0] * 8 for _ in texts]},
                                   {"fields": ["text"], "distance_type": "cosine"}])
def test_index_config_beyond_fields_is_refused(server: Server, index: dict) -> None:
    with pytest.raises(ValueError, match="embedding model") as err:
        KgmemStore(url=server.url, index=index)
    assert all(k in str(err.value) for k in index if k != "fields")


def test_index_fields_are_honoured(server: Server, root: str) -> None:
    store = KgmemStore(url=server.url, index={"fields": ["title"]})
    assert not hasattr(store, "index_config")
    store.put((root, "f"), "doc", {"title": "gardening tips", "body": "submarine periscope"})
    store.put((root, "f"), "own", {"title": "gardening tips", "body": "submarine periscope"}, index=["body"])
    store.put((root, "f"), "none", {"title": "gardening tips"}, index=False)
    with KgmemClient(server.url) as c:
        ns = to_namespace((root, "f"))
        assert c.get_item(ns, "doc")["text"] == "gardening tips"  # what is embedded and searched
        assert c.get_item(ns, "own")["text"] == "submarine periscope"  # a put's own fields win
        assert not c.get_item(ns, "none").get("text")


async def test_sync_methods_work_in_the_event_loop(server: Server, root: str) -> None:
    store = KgmemStore(url=server.url)
    store.put((root, "l"), "k", {"v": 1})  # AsyncSqliteStore raises InvalidStateError here
    got = store.get((root, "l"), "k")
    assert got is not None and got.value == {"v": 1}


def test_filter_members_are_top_level(server: Server, root: str) -> None:
    store = KgmemStore(url=server.url)
    store.put((root, "t"), "nested", {"user": {"level": "x"}})
    store.put((root, "t"), "dotted", {"user.level": "x"})
    assert [i.key for i in store.search((root, "t"), filter={"user.level": "x"})] == ["dotted"]


def test_any_filter_member_is_data(server: Server, root: str) -> None:
    store = KgmemStore(url=server.url)
    odd = "access') = 'public' OR '1'='1' OR json_extract(value, '$."
    store.put((root, "q"), "public", {"access": "public"})
    assert store.search((root, "q"), filter={odd: "dummy"}) == []
    store.put((root, "q"), "odd", {odd: "dummy"})
    assert [i.key for i in store.search((root, "q"), filter={odd: "dummy"})] == ["odd"]
