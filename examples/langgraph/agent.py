"""A LangGraph agent whose long-term memory is kgmem: LangMem's memory tools
on KgmemStore, in a two-node graph (the model, then the tools it calls).

The chat model here is scripted (LangChain's GenericFakeChatModel), so the
example runs without an API key and always makes the same calls; give
build_agent any tool-calling chat model instead, such as
langchain_openai.ChatOpenAI(model="gpt-4o-mini"), and it decides for itself.

    go run ./cmd/server &                   # a server on 127.0.0.1:8080
    pip install "./python[langgraph]"
    python examples/langgraph/agent.py      # KGMEM_URL, KGMEM_API_KEY to point elsewhere
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langmem import create_manage_memory_tool, create_search_memory_tool

from kgmem.langgraph import KgmemStore


def build_agent(model: BaseChatModel, store: KgmemStore, root: str = "examples"):  # type: ignore[no-untyped-def]
    """The agent: the model answers or calls a memory tool; the tools read
    and write the user's memories in kgmem (root/memories/<user id>)."""
    namespace = (root, "memories", "{langgraph_user_id}")
    tools = [create_manage_memory_tool(namespace=namespace), create_search_memory_tool(namespace=namespace)]
    llm = model.bind_tools(tools)

    def agent(state: MessagesState) -> dict[str, Any]:
        return {"messages": [llm.invoke(state["messages"])]}

    graph = StateGraph(MessagesState)
    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode(tools))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", tools_condition)  # a tool call → "tools", else the end
    graph.add_edge("tools", "agent")
    return graph.compile(store=store)  # the tools reach the store through get_store()


class ScriptedChatModel(GenericFakeChatModel):
    """Answers with its scripted messages in order; binding tools changes nothing."""

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:
        return self


def script() -> Iterator[AIMessage]:
    """What a model would say in the two conversations of main."""
    yield AIMessage(content="", tool_calls=[{"name": "manage_memory", "id": "call_1",
                                             "args": {"content": "Ana is allergic to peanuts", "action": "create"}}])
    yield AIMessage(content="Noted: no peanuts for you.")
    yield AIMessage(content="", tool_calls=[{"name": "search_memory", "id": "call_2",
                                             "args": {"query": "food allergies"}}])
    yield AIMessage(content="How about apple slices with sunflower seed butter?")


def main(url: str, api_key: str | None = None, root: str = "examples", model: BaseChatModel | None = None) -> None:
    """Two conversations with one user: the first tells the agent something,
    the second, in a new thread, needs it back from kgmem."""
    store = KgmemStore(url=url, api_key=api_key)
    app = build_agent(model or ScriptedChatModel(messages=script()), store, root)
    config = {"configurable": {"langgraph_user_id": "ana"}}

    first = app.invoke({"messages": [{"role": "user", "content": "I'm allergic to peanuts."}]}, config)
    print(f"agent: {first['messages'][-1].content}")

    second = app.invoke({"messages": [{"role": "user", "content": "Suggest a snack."}]}, config)
    recalled = [m for m in second["messages"] if isinstance(m, ToolMessage)]
    for memory in json.loads(recalled[0].content):  # search_memory answers JSON text
        print(f"recalled: {memory['value']['content']}")
    print(f"agent: {second['messages'][-1].content}")

    for item in store.search((root, "memories", "ana")):  # what kgmem holds for ana
        print(f"stored: {'/'.join(item.namespace)} {item.value['content']}")


if __name__ == "__main__":
    main(os.environ.get("KGMEM_URL", "http://127.0.0.1:8080"), os.environ.get("KGMEM_API_KEY"))
