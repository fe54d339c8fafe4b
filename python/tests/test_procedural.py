"""Procedural memory (kgmem.instructions) with LangMem's real prompt
optimizer: its chat model is LangChain's ChatOpenAI against a scripted
OpenAI-compatible server, the one fake."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from langchain_openai import ChatOpenAI
from langmem import create_prompt_optimizer

from kgmem import KgmemClient
from kgmem.instructions import MAX_PROMPT_BYTES, Instructions

from . import scripted_llm
from .conftest import Server
from .test_examples import run_example

FIRST = "You are the support agent of an online shop. Answer briefly."
BETTER = "You are the support agent of an online shop. Ask for the order number first, then answer briefly."
CONVERSATION = [
    {"role": "user", "content": "My parcel never arrived."},
    {"role": "assistant", "content": "Sorry to hear that. It should arrive soon."},
]
FEEDBACK = "Ask for the order number before anything else, then check the parcel's status."


@pytest.fixture
def llm() -> Iterator[scripted_llm.ScriptedLLM]:
    yield from scripted_llm.serve()


def optimizer(llm: scripted_llm.ScriptedLLM, kind: str = "prompt_memory", config: dict[str, Any] | None = None):  # type: ignore[no-untyped-def]
    model = ChatOpenAI(model="scripted", base_url=llm.url, api_key="sk-scripted", temperature=0, max_retries=0)
    return create_prompt_optimizer(model, kind=kind, config=config)  # type: ignore[call-overload]


def test_optimizer_round_trip(client: KgmemClient, root: str, llm: scripted_llm.ScriptedLLM) -> None:
    rules = Instructions(client, f"{root}/agents/support")
    assert rules.current() is None
    with pytest.raises(LookupError):
        rules.optimize(optimizer(llm), [(CONVERSATION, FEEDBACK)])
    first = rules.update(FIRST, "first version")
    assert (first.number, first.prompt, first.note) == (1, FIRST, "first version")

    llm.script.append({"logic": "the user wanted the order number asked for", "update_prompt": True, "new_prompt": BETTER})
    better = rules.optimize(optimizer(llm), [(CONVERSATION, FEEDBACK)])
    assert better is not None and (better.number, better.prompt, better.note) == (2, BETTER, "prompt optimizer")
    # The optimizer was given the instructions kgmem held, and the feedback.
    [sent] = llm.prompts()
    assert FIRST in sent and FEEDBACK in sent and "My parcel never arrived." in sent

    # An optimizer that keeps the prompt writes no version.
    llm.script.append({"logic": "nothing to change", "update_prompt": False, "new_prompt": ""})
    assert rules.optimize(optimizer(llm), [(CONVERSATION, "fine")]) is None
    assert [v.prompt for v in rules.versions()] == [FIRST, BETTER]

    back = rules.restore(1)
    assert (back.number, back.prompt, back.restored_from, back.note) == (3, FIRST, 1, "restored version 1")
    assert rules.current() == back
    assert [v.prompt for v in rules.versions()] == [FIRST, BETTER, FIRST]
    assert rules.version(2).prompt == BETTER

    # The versions are items of <namespace>/instructions/agent, kept out of search.
    items = client.search_items(rules.namespace, limit=10, reinforce=False)["items"]
    assert rules.namespace == f"{root}/agents/support/instructions/agent"
    assert sorted(i["value"]["prompt"] for i in items) == sorted([FIRST, BETTER, FIRST])
    assert all(i["text"] == "" and re.fullmatch(r"\d{8}T\d{6}\.\d{9}Z-[0-9a-f]{12}", i["key"]) for i in items)
    ranked = client.search_items(f"{root}/agents", query="order number", reinforce=False)["items"]
    assert all(i["score"] is None for i in ranked)


def test_gradient_optimizer(client: KgmemClient, root: str, llm: scripted_llm.ScriptedLLM) -> None:
    """LangMem's default optimizer (gradient: a recommendation, then the
    rewrite, each a tool call) on instructions of another name."""
    rules = Instructions(client, f"{root}/agents/support", name="triage")
    rules.update(FIRST)
    llm.script += [
        scripted_llm.ToolCall("recommend", {"warrants_adjustment": True, "hypotheses": "the agent never asks for the order",
                                            "full_recommendations": "Ask for the order number first."}),
        scripted_llm.ToolCall("OptimizedPromptOutput", {"analysis": "add the order number", "improved_prompt": BETTER}),
    ]
    gradient = optimizer(llm, "gradient", {"max_reflection_steps": 1, "min_reflection_steps": 0})
    better = rules.optimize(gradient, [(CONVERSATION, FEEDBACK)], update_instructions="Change as little as possible.")
    assert better is not None and (better.number, better.prompt) == (2, BETTER)
    # The reflection read kgmem's instructions, the feedback and the guidance; the rewrite its recommendation.
    reflect, rewrite = llm.prompts()
    assert FIRST in reflect and FEEDBACK in reflect and "Change as little as possible." in reflect
    assert FIRST in rewrite and "Ask for the order number first." in rewrite
    # The default instructions of the namespace are another history.
    assert Instructions(client, f"{root}/agents/support").current() is None


def test_bad_input_writes_nothing(client: KgmemClient, root: str) -> None:
    rules = Instructions(client, f"{root}/agents/a")
    rules.update("Be kind.")
    for call, field in [
        (lambda: Instructions(client, f"{root}/agents/a", name="a/b"), "name"),
        (lambda: rules.update("   "), "prompt"),
        (lambda: rules.update("x" * (MAX_PROMPT_BYTES + 1)), "prompt"),
        (lambda: rules.update("ok", "n" * 2000), "note"),
        (lambda: rules.restore(0), "version"),
        (lambda: rules.version(0), "version"),
    ]:
        with pytest.raises(ValueError, match=f"^{field}:"):
            call()
    with pytest.raises(LookupError, match="^version:"):
        rules.restore(5)
    assert [v.prompt for v in rules.versions()] == ["Be kind."]


def test_procedural_example(server: Server, llm: scripted_llm.ScriptedLLM) -> None:
    """examples/langgraph/procedural.py as a user runs it, its model at the scripted server."""
    llm.script.append({"logic": "ask for the order number", "update_prompt": True, "new_prompt": BETTER})
    out = run_example("examples/langgraph/procedural.py", server, OPENAI_BASE_URL=llm.url, OPENAI_API_KEY="sk-scripted")
    assert out.splitlines() == [
        f"version 1: {FIRST}",
        f"version 2 (prompt optimizer): {BETTER}",
        f"version 3 (restored version 1): {FIRST}",
        "versions kept: 3",
    ]
    assert len(llm.requests) == 1
