"""LangGraph namespace tuples ↔ kgmem namespaces.

kgmem namespaces are slash-separated segments of [A-Za-z0-9_.-]; LangGraph
labels are free text. Each label becomes one segment: letters, digits, '_'
and '-' stay, every other byte of its UTF-8 becomes '.' and two upper-case
hex digits ("user 42" → "user.2042"). It is the server's own mapping
(kgmem.NamespaceFromLabels), so both sides agree on every namespace.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

MAX_DEPTH = 8
MAX_SEGMENT = 64
_KEPT = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_ESCAPE = re.compile(r"\.([0-9A-F]{2})")


def to_namespace(labels: Sequence[str]) -> str:
    """Encodes labels (1 to 8, none empty) as a kgmem namespace.

    Raises:
        ValueError: no labels, too many, an empty one, or one longer than
            64 characters once encoded.
    """
    if not 1 <= len(labels) <= MAX_DEPTH:
        raise ValueError(f"a kgmem namespace has 1 to {MAX_DEPTH} labels, got {len(labels)}: {tuple(labels)!r}")
    segments = []
    for i, label in enumerate(labels):
        if not isinstance(label, str) or not label:
            raise ValueError(f"label {i + 1} of {tuple(labels)!r} must be a non-empty string")
        seg = "".join(chr(b) if b in _KEPT else f".{b:02X}" for b in label.encode("utf-8"))
        if len(seg) > MAX_SEGMENT:
            raise ValueError(
                f"label {i + 1} of {tuple(labels)!r} is {len(seg)} characters once encoded, at most {MAX_SEGMENT} "
                "(each byte other than a letter, digit, '_' or '-' takes 3)"
            )
        segments.append(seg)
    return "/".join(segments)


def to_labels(namespace: str) -> tuple[str, ...]:
    """Decodes a namespace written by to_namespace back into its labels.

    Raises:
        ValueError: the namespace is not spelled as to_namespace writes.
    """
    labels = []
    for seg in namespace.split("/"):
        out = bytearray()
        i = 0
        while i < len(seg):
            c = seg[i]
            if c == ".":
                m = _ESCAPE.match(seg, i)
                if not m or int(m.group(1), 16) in _KEPT:
                    raise ValueError(f"namespace {namespace!r} is not an encoding of labels")
                out.append(int(m.group(1), 16))
                i += 3
            elif ord(c) < 128 and ord(c) in _KEPT:
                out.append(ord(c))
                i += 1
            else:
                raise ValueError(f"namespace {namespace!r} is not an encoding of labels")
        try:
            labels.append(out.decode("utf-8"))
        except UnicodeDecodeError as e:
            raise ValueError(f"namespace {namespace!r} is not an encoding of labels") from e
    return tuple(labels)
