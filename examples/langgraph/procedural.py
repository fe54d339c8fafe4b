"""Procedural memory on kgmem: an agent's instructions kept as versions,
rewritten from feedback by LangMem's prompt optimizer, and restored.

The optimizer's model is any OpenAI-compatible chat model (ChatOpenAI reads
OPENAI_API_KEY, and OPENAI_BASE_URL for another endpoint; OPENAI_MODEL picks
the model). Each run adds versions to the namespace examples/agents/support.

    go run ./cmd/server &                   # a server on 127.0.0.1:8080
    pip install "./python[langgraph]"
    OPENAI_API_KEY=... python examples/langgraph/procedural.py
"""

from __future__ import annotations

import os

from langchain_openai import ChatOpenAI
from langmem import create_prompt_optimizer

from kgmem import KgmemClient
from kgmem.instructions import Instructions

conversation = [
    {"role": "user", "content": "My parcel never arrived."},
    {"role": "assistant", "content": "Sorry to hear that. It should arrive soon."},
]
feedback = "Ask for the order number before anything else, then check the parcel's status."

with KgmemClient(os.environ.get("KGMEM_URL", "http://127.0.0.1:8080"), os.environ.get("KGMEM_API_KEY")) as client:
    rules = Instructions(client, "examples/agents/support")
    first = rules.update("You are the support agent of an online shop. Answer briefly.", "first version")
    print(f"version {first.number}: {first.prompt}")

    model = ChatOpenAI(model=os.environ.get("OPENAI_MODEL", "gpt-4o-mini"), temperature=0)
    optimizer = create_prompt_optimizer(model, kind="prompt_memory")
    better = rules.optimize(optimizer, [(conversation, feedback)])
    if better is None:
        print("the optimizer kept the instructions as they were")
    else:
        print(f"version {better.number} ({better.note}): {better.prompt}")

    back = rules.restore(first.number)
    print(f"version {back.number} ({back.note}): {back.prompt}")
    print(f"versions kept: {len(rules.versions())}")
