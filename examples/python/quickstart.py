"""kgmem's Python client in a few calls: post a conversation's messages and
two facts into a namespace, search it and print the prompt-ready context the
server answers.

    go run ./cmd/server &                   # a server on 127.0.0.1:8080
    pip install ./python
    python examples/python/quickstart.py    # KGMEM_URL, KGMEM_API_KEY to point elsewhere
"""

from __future__ import annotations

import os

from kgmem import KgmemClient


def main(url: str, api_key: str | None = None, namespace: str = "examples/python") -> None:
    """Talk to the kgmem server at url and print what it found. Running it
    again rewrites the same records (messages and facts are idempotent)."""
    with KgmemClient(url, api_key=api_key) as client:
        # Messages are kept as episodes of a thread; the server extracts facts
        # from them when it has an LLM.
        ingested, _created = client.add_memories(namespace, [
            {"id": "m1", "role": "user", "name": "Ana", "content": "I moved to Porto in May.",
             "timestamp": "2024-05-02T10:00:00Z"},
            {"id": "m2", "role": "user", "name": "Ana", "content": "I started at Acme as a data engineer.",
             "timestamp": "2024-06-10T09:00:00Z"},
        ], thread_id="chat-1")
        print(f"messages: {len(ingested['episodes'])} episodes")

        # Facts you already know go in as triples; a later one that
        # contradicts an earlier one retires it.
        added = client.add_facts(namespace, [
            {"subject": "Ana", "predicate": "lives_in", "object": "Lisbon", "valid_at": "2020-01-01"},
            {"subject": "Ana", "predicate": "lives_in", "object": "Porto", "valid_at": "2024-05-01"},
        ])
        for change in added["facts"]:
            print(f"fact {change['op']}: {change['fact']['fact']}")

        found = client.search(namespace, "Where does Ana live?", limit=3)
        print(f"top fact: {found['facts'][0]['fact']}")
        print(f"context:\n{found['context']}")


if __name__ == "__main__":
    main(os.environ.get("KGMEM_URL", "http://127.0.0.1:8080"), os.environ.get("KGMEM_API_KEY"))
