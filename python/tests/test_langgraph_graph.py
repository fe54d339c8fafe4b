"""A LangGraph graph compiled with store=KgmemStore(...): its node reads and
writes memories through get_store(), sync and async."""

from __future__ import annotations

from typing import TypedDict

from langgraph.config import get_store
from langgraph.graph import END, START, StateGraph

from kgmem.langgraph import KgmemStore

from .conftest import Server


class State(TypedDict):
    user: str
    said: str
    recalled: list[str]


def build(root: str):  # type: ignore[no-untyped-def]
    def remember(state: State) -> dict[str, list[str]]:
        store = get_store()
        ns = (root, "users", state["user"])
        recalled = [item.value["text"] for item in store.search(ns, query=state["said"], limit=3)]
        store.put(ns, f"m{len(store.search(ns, limit=100))}", {"text": state["said"]})
        return {"recalled": recalled}

    async def aremember(state: State) -> dict[str, list[str]]:
        store = get_store()
        ns = (root, "users", state["user"])
        recalled = [item.value["text"] for item in await store.asearch(ns, query=state["said"], limit=3)]
        await store.aput(ns, f"m{len(await store.asearch(ns, limit=100))}", {"text": state["said"]})
        return {"recalled": recalled}

    g = StateGraph(State)
    g.add_node("remember", remember)
    g.add_edge(START, "remember")
    g.add_edge("remember", END)
    ag = StateGraph(State)
    ag.add_node("remember", aremember)
    ag.add_edge(START, "remember")
    ag.add_edge("remember", END)
    return g, ag


def test_graph_reads_and_writes_through_the_store(server: Server, root: str) -> None:
    graph, _ = build(root)
    app = graph.compile(store=KgmemStore(url=server.url))
    first = app.invoke({"user": "ana", "said": "My sister Lucia lives in Lisbon", "recalled": []})
    assert first["recalled"] == []
    second = app.invoke({"user": "ana", "said": "Where does Lucia live?", "recalled": []})
    assert second["recalled"][0] == "My sister Lucia lives in Lisbon"
    other = app.invoke({"user": "ben", "said": "Where does Lucia live?", "recalled": []})
    assert other["recalled"] == []  # another user's namespace holds nothing of ana's


async def test_async_graph(server: Server, root: str) -> None:
    _, agraph = build(root)
    app = agraph.compile(store=KgmemStore(url=server.url))
    await app.ainvoke({"user": "cy", "said": "I keep bees on the roof", "recalled": []})
    out = await app.ainvoke({"user": "cy", "said": "What do I keep on the roof?", "recalled": []})
    assert out["recalled"] == ["I keep bees on the roof"]
