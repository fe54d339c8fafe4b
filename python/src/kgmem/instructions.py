"""Procedural memory: an agent's instructions (its system prompt) kept in
kgmem with their history, and rewritten from feedback by LangMem's prompt
optimizer.

Every update writes a new version and keeps the previous ones; any version
can be read, and restoring an earlier one writes it again as a new version,
so a restore can itself be undone. The MCP tools get_instructions,
list_instruction_versions, update_instructions and restore_instructions read
and write the same versions.

    from kgmem import KgmemClient
    from kgmem.instructions import Instructions
    from langmem import create_prompt_optimizer

    with KgmemClient() as client:
        rules = Instructions(client, "acme/agents/support")
        rules.update("You are a support agent. Answer briefly.")
        optimizer = create_prompt_optimizer("openai:gpt-4o-mini", kind="prompt_memory")
        rules.optimize(optimizer, [(messages, "Always give the order number.")])
        rules.restore(1)                                   # undo the rewrite

Layout: the instructions named ``name`` of ``namespace`` are the items of
the namespace ``<namespace>/instructions/<name>``, one per version, never
overwritten (the key is the write's time and a random suffix, so concurrent
updates each keep their version), not indexed for search; the value is
``{"prompt": ..., "note": ..., "restored_from": n}``. Versions are numbered
from 1 in the order the server created them.
"""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from .client import KgmemClient

DEFAULT_NAME = "agent"
"""The name of an agent's instructions when none is given."""
MAX_PROMPT_BYTES = 32 << 10
"""The longest text of one version, in UTF-8 bytes."""
MAX_NOTE_BYTES = 1024
"""The longest note of one version, in UTF-8 bytes."""

_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")
_PAGE = 100


@dataclass(frozen=True)
class Version:
    """One version of an agent's instructions."""

    number: int
    """Counts the versions from 1, oldest first."""
    prompt: str
    """The instructions' text."""
    note: str
    """Why this version was written ("" when no note was given)."""
    restored_from: int
    """The version this one restored, 0 when it is new text."""
    created_at: datetime
    """When the version was written."""
    key: str
    """The version's item key in Instructions.namespace."""


class Instructions:
    """One agent's instructions, by namespace and name, on a kgmem server.

    Args:
        client: the kgmem client (its key must cover namespace).
        namespace: the agent's namespace, for instance "acme/agents/support".
        name: which instructions, when an agent keeps several: one segment
            of letters, digits, '_', '.' and '-' (default, or empty: "agent").

    Raises:
        ValueError: a name that is not one such segment.
    """

    def __init__(self, client: KgmemClient, namespace: str, name: str = DEFAULT_NAME) -> None:
        name = name or DEFAULT_NAME
        if not _NAME.fullmatch(name) or name in (".", ".."):
            raise ValueError(f"name: {name!r} is not one segment of 1-64 letters, digits, '_', '.' and '-'")
        self.client = client
        self.name = name
        self.namespace = f"{namespace}/instructions/{name}"
        """The namespace of the versions' items."""

    def versions(self) -> list[Version]:
        """Every version, oldest first."""
        items: dict[str, dict[str, Any]] = {}
        offset = 0
        while True:
            page = self.client.search_items(self.namespace, limit=_PAGE, offset=offset, reinforce=False)["items"]
            for it in page:
                if it["namespace"] == self.namespace:
                    items.setdefault(it["key"], it)
            if len(page) < _PAGE:
                break
            offset += _PAGE
        # In the server's order to the nanosecond, as the Go package and the MCP tools number them.
        ordered = sorted(items.values(), key=lambda it: (*_instant(it["created_at"]), it["key"]))
        return [Version(number=i + 1, prompt=it["value"]["prompt"], note=it["value"].get("note", ""),
                        restored_from=it["value"].get("restored_from", 0), created_at=_time(it["created_at"]), key=it["key"])
                for i, it in enumerate(ordered)]

    def current(self) -> Version | None:
        """The latest version, or None when none was written yet."""
        vs = self.versions()
        return vs[-1] if vs else None

    def version(self, number: int) -> Version:
        """Version ``number`` (from 1).

        Raises:
            LookupError: there is no such version.
            ValueError: number is below 1.
        """
        if number < 1:
            raise ValueError(f"version: is {number}, must be at least 1")
        vs = self.versions()
        if number > len(vs):
            raise LookupError(f"version: is {number}; instructions {self.name!r} have {len(vs)} versions")
        return vs[number - 1]

    def update(self, prompt: str, note: str = "") -> Version:
        """Write ``prompt`` as a new version (``note`` saying why) and return
        it; the previous versions are kept.

        Raises:
            ValueError: an empty or too long prompt, or a too long note.
        """
        if not prompt.strip():
            raise ValueError("prompt: is empty")
        _check("prompt", prompt, MAX_PROMPT_BYTES)
        _check("note", note, MAX_NOTE_BYTES)
        return self._write({"prompt": prompt, "note": note})

    def restore(self, number: int, note: str = "") -> Version:
        """Write version ``number`` again as a new version and return it; the
        versions after it are kept, so a restore can be undone.

        Raises:
            LookupError: there is no such version.
            ValueError: number is below 1, or a too long note.
        """
        _check("note", note, MAX_NOTE_BYTES)
        old = self.version(number)
        return self._write({"prompt": old.prompt, "note": note or f"restored version {number}", "restored_from": number})

    def optimize(self, optimizer: Any, trajectories: Sequence[Any] | str, *, update_instructions: str | None = None,
                 note: str = "prompt optimizer") -> Version | None:
        """Rewrite the current instructions from conversations and feedback
        with a LangMem prompt optimizer (``langmem.create_prompt_optimizer``)
        and store its answer as a new version.

        Args:
            optimizer: the optimizer; any runnable taking
                ``{"trajectories": ..., "prompt": langmem.Prompt}`` and
                returning the new prompt.
            trajectories: (messages, feedback) pairs, as LangMem takes them.
            update_instructions: how the optimizer should change the prompt.
            note: the new version's note.

        Returns:
            The new version, or None when the optimizer kept the prompt as
            it was (no version is written).

        Raises:
            LookupError: there are no instructions yet to optimize.
        """
        current = self.current()
        if current is None:
            raise LookupError(f"instructions {self.name!r} have no version yet; write one with update() first")
        prompt: dict[str, Any] = {"name": self.name, "prompt": current.prompt}
        if update_instructions is not None:
            prompt["update_instructions"] = update_instructions
        new = optimizer.invoke({"trajectories": trajectories, "prompt": prompt})
        if not isinstance(new, str) or not new.strip() or new.strip() == current.prompt.strip():
            return None
        return self.update(new, note)

    def _write(self, value: dict[str, Any]) -> Version:
        ns = time.time_ns()
        stamp = datetime.fromtimestamp(ns // 1_000_000_000, timezone.utc).strftime("%Y%m%dT%H%M%S")
        key = f"{stamp}.{ns % 1_000_000_000:09d}Z-{secrets.token_hex(6)}"
        self.client.put_item(self.namespace, key, value, index=False)
        for v in reversed(self.versions()):
            if v.key == key:
                return v
        raise RuntimeError(f"instructions {self.name!r}: the version just written ({key}) is not listed")


def _check(field: str, s: str, most: int) -> None:
    if "\x00" in s:
        raise ValueError(f"{field}: contains a NUL character")
    if len(s.encode()) > most:
        raise ValueError(f"{field}: is {len(s.encode())} bytes, at most {most} allowed")


def _instant(s: str) -> tuple[datetime, int]:
    """An RFC 3339 time as the server writes it: the second, and the
    nanoseconds within it."""
    head, frac = s.replace("Z", "+00:00"), ""
    if "." in head:
        head, rest = head.split(".", 1)
        digits = len(rest) - len(rest.lstrip("0123456789"))
        frac, head = rest[:digits], head + rest[digits:]
    return datetime.fromisoformat(head), int((frac + "000000000")[:9])


def _time(s: str) -> datetime:
    """An RFC 3339 time as the server writes it, to the microsecond."""
    t, nanos = _instant(s)
    return t.replace(microsecond=nanos // 1000)
