"""kgmem's MCP server driven by the official MCP Python SDK, a client nobody
here wrote: over stdio (`server mcp`, in process on the embedded backends)
and over streamable HTTP (POST /mcp on a running server, behind API keys).

scripts/test-mcp.sh builds the server, starts the HTTP one and sets:
  KGMEM_BIN         the server binary
  KGMEM_URL         the running server's base URL
  KGMEM_ADMIN_KEY   its admin key
  KGMEM_SCOPED_KEY  a write key scoped to the prefix acme/users
"""

from __future__ import annotations

import os
import tempfile
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

pytestmark = pytest.mark.anyio

TOOLS = {
    "add_facts",
    "add_memories",
    "confirm_memory",
    "delete_fact",
    "get_entity",
    "get_instructions",
    "list_entities",
    "list_instruction_versions",
    "pin_memory",
    "restore_instructions",
    "search_memory",
    "unpin_memory",
    "update_instructions",
}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@asynccontextmanager
async def stdio_session(*args: str) -> AsyncIterator[ClientSession]:
    data_dir = tempfile.mkdtemp(prefix="kgmem-mcp-")
    params = StdioServerParameters(
        command=os.environ["KGMEM_BIN"],
        args=["mcp", "--data-dir", data_dir, *args],
        env={"KGMEM_LOG_LEVEL": "warn"},
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            yield session


@asynccontextmanager
async def http_session(key: str) -> AsyncIterator[ClientSession]:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
        async with streamable_http_client(os.environ["KGMEM_URL"] + "/mcp", http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session


@asynccontextmanager
async def session_for(transport: str) -> AsyncIterator[ClientSession]:
    if transport == "stdio":
        async with stdio_session() as s:
            yield s
    else:
        async with http_session(os.environ["KGMEM_ADMIN_KEY"]) as s:
            yield s


def text_of(result: Any) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_remember_search_and_history(transport: str) -> None:
    ns = f"acme/users/py-{uuid.uuid4().hex[:8]}"
    async with session_for(transport) as s:
        tools = await s.list_tools()
        assert {t.name for t in tools.tools} == TOOLS
        for t in tools.tools:
            assert t.description, t.name
            assert "namespace" in t.input_schema["properties"], t.name

        added = await s.call_tool("add_memories", {"namespace": ns, "text": "Alice moved to Lisbon to join the robotics lab.", "speaker": "Alice"})
        assert not added.is_error, text_of(added)
        assert added.structured_content["stored"] == 1

        found = await s.call_tool("search_memory", {"namespace": ns, "query": "Where did Alice move?"})
        assert not found.is_error, text_of(found)
        assert "Lisbon" in text_of(found)
        assert any("Lisbon" in e["content"] for e in found.structured_content["episodes"])

        facts = await s.call_tool(
            "add_facts",
            {
                "namespace": ns,
                "facts": [
                    {"subject": "Alice", "predicate": "lives in", "object": "Paris", "valid_at": "2020-01-01"},
                    {"subject": "Alice", "predicate": "lives in", "object": "Lisbon", "valid_at": "2024-05-01"},
                ],
            },
        )
        assert not facts.is_error, text_of(facts)
        ops = [c["op"] for c in facts.structured_content["changes"]]
        assert "invalidated" in ops, ops

        entity = await s.call_tool("get_entity", {"namespace": ns, "entity": "Alice"})
        assert not entity.is_error, text_of(entity)
        out = entity.structured_content
        assert [f["object"] for f in out["current"]] == ["Lisbon"]
        assert [(f["object"], f["status"]) for f in out["history"]] == [("Paris", "invalidated")]
        assert out["history"][0]["invalid_at"].startswith("2024-05-01")


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_instructions_keep_their_history(transport: str) -> None:
    ns = f"acme/users/py-{uuid.uuid4().hex[:8]}"
    async with session_for(transport) as s:
        for prompt in ("Answer briefly.", "Answer briefly, in French."):
            res = await s.call_tool("update_instructions", {"namespace": ns, "prompt": prompt})
            assert not res.is_error, text_of(res)
        res = await s.call_tool("restore_instructions", {"namespace": ns, "version": 1})
        assert not res.is_error, text_of(res)
        assert (res.structured_content["version"], res.structured_content["restored_from"]) == (3, 1)
        got = await s.call_tool("get_instructions", {"namespace": ns})
        assert (got.structured_content["prompt"], got.structured_content["versions"]) == ("Answer briefly.", 3)
        history = await s.call_tool("list_instruction_versions", {"namespace": ns})
        assert [v["prompt"] for v in history.structured_content["versions"]] == [
            "Answer briefly.", "Answer briefly, in French.", "Answer briefly."]


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_bad_argument_is_a_tool_error(transport: str) -> None:
    async with session_for(transport) as s:
        res = await s.call_tool(
            "add_facts",
            {"namespace": "acme/users/bad", "facts": [{"subject": "a", "predicate": "p", "object": "b", "valid_at": "someday"}]},
        )
        assert res.is_error
        assert "facts[0].valid_at" in text_of(res)
        res = await s.call_tool("search_memory", {"namespace": "../etc", "query": "x"})
        assert res.is_error
        assert "namespace" in text_of(res)
        # The session survives bad arguments.
        assert len((await s.list_tools()).tools) == len(TOOLS)


async def test_scoped_key_is_refused_outside_its_prefix() -> None:
    async with http_session(os.environ["KGMEM_SCOPED_KEY"]) as s:
        inside = await s.call_tool("search_memory", {"namespace": "acme/users/anyone", "query": "x"})
        assert not inside.is_error, text_of(inside)
        outside = await s.call_tool("search_memory", {"namespace": "acme/admins", "query": "x"})
        assert outside.is_error
        assert "403" in text_of(outside) and "acme/admins" in text_of(outside)


async def test_no_key_is_refused() -> None:
    async with httpx2.AsyncClient(timeout=10) as http:
        r = await http.post(
            os.environ["KGMEM_URL"] + "/mcp",
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            headers={"Accept": "application/json, text/event-stream"},
        )
    assert r.status_code == 401
    assert r.headers["content-type"].startswith("application/problem+json")


async def test_stdio_with_a_fixed_namespace() -> None:
    async with stdio_session("--namespace", "acme/users/zoe") as s:
        tools = await s.list_tools()
        assert all("namespace" not in t.input_schema.get("properties", {}) for t in tools.tools)
        res = await s.call_tool("add_facts", {"facts": [{"subject": "Zoe", "predicate": "plays", "object": "chess"}]})
        assert not res.is_error, text_of(res)
        found = await s.call_tool("search_memory", {"query": "What does Zoe play?"})
        assert "Zoe plays chess" in text_of(found)


async def test_stdio_bridge_to_a_running_server() -> None:
    params = StdioServerParameters(
        command=os.environ["KGMEM_BIN"],
        args=["mcp", "--url", os.environ["KGMEM_URL"], "--api-key", os.environ["KGMEM_SCOPED_KEY"], "--namespace", "acme/users/bridge"],
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            res = await s.call_tool("add_facts", {"facts": [{"subject": "Ian", "predicate": "works at", "object": "Initech"}]})
            assert not res.is_error, text_of(res)
    # What the bridge wrote is on the server, where the key reaches it.
    async with http_session(os.environ["KGMEM_SCOPED_KEY"]) as s:
        found = await s.call_tool("get_entity", {"namespace": "acme/users/bridge", "entity": "Ian"})
        assert [f["object"] for f in found.structured_content["current"]] == ["Initech"]
    # Outside the key's prefix, the bridge is refused by the server.
    params.args[-1] = "acme/admins"
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            res = await s.call_tool("search_memory", {"query": "x"})
            assert res.is_error and "403" in text_of(res)
