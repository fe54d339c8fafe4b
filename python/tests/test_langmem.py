"""LangMem's own tools and memory manager (package langmem from PyPI) on
kgmem, through KgmemStore; the chat model is LangChain's scripted fake, so
no paid API is called."""

from __future__ import annotations

from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langmem import create_manage_memory_tool, create_memory_store_manager, create_search_memory_tool

from kgmem import KgmemClient
from kgmem.langgraph import KgmemStore

from .conftest import Server


class ScriptedChatModel(GenericFakeChatModel):
    """Answers with the scripted messages in order; binding tools changes nothing."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedChatModel:
        return self


def test_manage_and_search_tools(server: Server, root: str) -> None:
    store = KgmemStore(url=server.url)
    namespace = (root, "memories", "{langgraph_user_id}")
    manage = create_manage_memory_tool(namespace=namespace, store=store)
    search = create_search_memory_tool(namespace=namespace, store=store)
    config = {"configurable": {"langgraph_user_id": "user 1"}}

    created = manage.invoke({"content": "The user rides a red bicycle to work", "action": "create"}, config)
    key = created.split("created memory ")[-1].strip()
    manage.invoke({"content": "The user drinks green tea every afternoon", "action": "create"}, config)
    found = search.invoke({"query": "bicycle to work"}, config)
    assert "red bicycle" in str(found)
    # On kgmem: the memory is an item of the user's namespace, ranked by its search.
    with KgmemClient(server.url) as c:
        items = c.search_items(f"{root}/memories/user.201", query="bicycle")["items"]
        assert items[0]["key"] == key and items[0]["score"] is not None

    manage.invoke({"content": "The user sold the bicycle and walks to work", "action": "update", "id": key}, config)
    item = store.get((root, "memories", "user 1"), key)
    assert item is not None and item.value["content"] == "The user sold the bicycle and walks to work"

    manage.invoke({"action": "delete", "id": key}, config)
    assert store.get((root, "memories", "user 1"), key) is None
    remaining = search.invoke({"query": "bicycle"}, config)
    assert "bicycle" not in str(remaining) and "green tea" in str(remaining)


def test_memory_store_manager(server: Server, root: str) -> None:
    store = KgmemStore(url=server.url)
    model = ScriptedChatModel(messages=iter([
        AIMessage(content="", tool_calls=[{"name": "Memory", "args": {"content": "User prefers dark mode"}, "id": "call_1"}]),
    ]))
    manager = create_memory_store_manager(model, namespace=(root, "memories", "{langgraph_user_id}"), store=store)
    out = manager.invoke({"messages": [{"role": "user", "content": "I prefer dark mode in every app"}]},
                         config={"configurable": {"langgraph_user_id": "u1"}})
    assert len(out) == 1
    stored = store.search((root, "memories", "u1"), query="dark mode")
    assert [i.value["content"]["content"] for i in stored] == ["User prefers dark mode"]
    assert stored[0].score is not None
