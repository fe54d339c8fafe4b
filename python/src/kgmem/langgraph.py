"""KgmemStore: a LangGraph store (BaseStore) on a kgmem server.

Swap ``InMemoryStore()`` or ``PostgresStore`` for ``KgmemStore(url=…)`` and
LangGraph's items live in kgmem: stored per namespace, searched by kgmem's
hybrid retrieval (BM25 + vector, decay-weighted) and, with extraction
configured on the server, turned into a knowledge graph.

How BaseStore maps onto kgmem:

- a namespace tuple is one kgmem namespace, label by label
  (kgmem.namespaces.to_namespace);
- put/get/delete are PUT/GET/DELETE /v1/items; ``index`` is passed through
  (None: the whole value, False: not searched, a list: those fields);
- search(prefix, query, filter, limit, offset) is POST /v1/items/search:
  ranked items first (``score`` is kgmem's final score), then the other
  matching items unranked, most recently updated first; the empty prefix
  searches every namespace the key may read;
- list_namespaces is GET /v1/items/namespaces with LangGraph's match
  conditions and max_depth applied to the decoded tuples;
- TTL is not supported (``supports_ttl`` is False): kgmem forgets by its
  forgetting curve instead.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)

from .client import DEFAULT_URL, AsyncKgmemClient, KgmemClient
from .errors import NotFoundError
from .namespaces import to_labels, to_namespace

_PAGE = 100  # the server's largest item page


class KgmemStore(BaseStore):
    """A LangGraph BaseStore whose items live in kgmem.

    It serves both the sync (``batch``) and the async (``abatch``) methods.

    Args:
        url: the kgmem server's base URL.
        api_key: an API key or the admin key; None on an open server.
        extract: turn every item put into facts with the server's LLM (the
            item is their provenance; rewriting or deleting it updates them).
        client, async_client: clients to use instead of the store's own.
    """

    supports_ttl: bool = False

    def __init__(self, url: str = DEFAULT_URL, api_key: str | None = None, *, extract: bool = False,
                 client: KgmemClient | None = None, async_client: AsyncKgmemClient | None = None) -> None:
        self.extract = extract
        self.client = client or KgmemClient(url, api_key)
        self.async_client = async_client or AsyncKgmemClient(url, api_key)

    # --- BaseStore ---

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return [self._run(op) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return list(await asyncio.gather(*(self._arun(op) for op in ops)))

    # --- sync ---

    def _run(self, op: Op) -> Result:
        c = self.client
        match op:
            case GetOp(namespace=ns, key=key):
                try:
                    return _item(c.get_item(to_namespace(ns), key))
                except NotFoundError:
                    return None
            case PutOp(namespace=ns, key=key, value=None):
                try:
                    c.delete_item(to_namespace(ns), key)
                except NotFoundError:
                    pass
                return None
            case PutOp(namespace=ns, key=key, value=value, index=index, ttl=ttl):
                _check_ttl(ttl)
                c.put_item(to_namespace(ns), key, value, index=_index(index), extract=self.extract)
                return None
            case SearchOp():
                if op.namespace_prefix:
                    return _search_items(c.search_items(**_search_args(op, to_namespace(op.namespace_prefix))))
                roots = _roots(c.item_namespaces())
                return _merge(op, [_search_items(c.search_items(**_search_args(op, r, whole=True))) for r in roots])
            case ListNamespacesOp():
                return _list_namespaces(op, c.item_namespaces(_list_prefix(op)))
        raise ValueError(f"KgmemStore: unknown operation {op!r}")

    # --- async ---

    async def _arun(self, op: Op) -> Result:
        c = self.async_client
        match op:
            case GetOp(namespace=ns, key=key):
                try:
                    return _item(await c.get_item(to_namespace(ns), key))
                except NotFoundError:
                    return None
            case PutOp(namespace=ns, key=key, value=None):
                try:
                    await c.delete_item(to_namespace(ns), key)
                except NotFoundError:
                    pass
                return None
            case PutOp(namespace=ns, key=key, value=value, index=index, ttl=ttl):
                _check_ttl(ttl)
                await c.put_item(to_namespace(ns), key, value, index=_index(index), extract=self.extract)
                return None
            case SearchOp():
                if op.namespace_prefix:
                    return _search_items(await c.search_items(**_search_args(op, to_namespace(op.namespace_prefix))))
                roots = _roots(await c.item_namespaces())
                found = await asyncio.gather(*(c.search_items(**_search_args(op, r, whole=True)) for r in roots))
                return _merge(op, [_search_items(f) for f in found])
            case ListNamespacesOp():
                return _list_namespaces(op, await c.item_namespaces(_list_prefix(op)))
        raise ValueError(f"KgmemStore: unknown operation {op!r}")


def _check_ttl(ttl: Any) -> None:
    if ttl is not None:
        raise NotImplementedError("KgmemStore does not support TTL (supports_ttl is False); kgmem forgets by its forgetting curve")


def _index(index: Any) -> Any:
    """LangGraph's index argument as kgmem takes it: None, False or fields."""
    if index is None or index is False:
        return index
    return list(index)


def _time(s: str) -> datetime:
    return datetime.fromisoformat(s.replace("Z", "+00:00"))


def _item(it: dict[str, Any]) -> Item:
    return Item(value=it["value"], key=it["key"], namespace=to_labels(it["namespace"]),
                created_at=_time(it["created_at"]), updated_at=_time(it["updated_at"]))


def _search_items(res: dict[str, Any]) -> list[SearchItem]:
    out = []
    for it in res["items"]:
        score = it.get("score")
        out.append(SearchItem(namespace=to_labels(it["namespace"]), key=it["key"], value=it["value"],
                              created_at=_time(it["created_at"]), updated_at=_time(it["updated_at"]),
                              score=score["final"] if score else None))
    return out


def _search_args(op: SearchOp, prefix: str, whole: bool = False) -> dict[str, Any]:
    """The search_items arguments of op under prefix; whole asks for every
    result up to offset + limit (the empty prefix merges several searches)."""
    if whole:
        return {"namespace_prefix": prefix, "query": op.query or None, "filter": op.filter,
                "limit": min(op.offset + op.limit, _PAGE), "offset": 0}
    return {"namespace_prefix": prefix, "query": op.query or None, "filter": op.filter, "limit": op.limit, "offset": op.offset}


def _roots(namespaces: Sequence[str]) -> list[str]:
    """The first segments of namespaces, each once, in order."""
    return list(dict.fromkeys(ns.split("/", 1)[0] for ns in namespaces))


def _merge(op: SearchOp, results: list[list[SearchItem]]) -> list[SearchItem]:
    """Merges the searches of several roots as one search would rank them:
    ranked items by score, then unranked ones, most recently updated first."""
    items = [it for r in results for it in r]
    ranked = sorted((it for it in items if it.score is not None), key=lambda it: -(it.score or 0.0))
    rest = sorted((it for it in items if it.score is None), key=lambda it: it.updated_at, reverse=True)
    return (ranked + rest)[op.offset: op.offset + op.limit]


def _list_prefix(op: ListNamespacesOp) -> str | None:
    """The namespace prefix the server can filter by: the leading labels of
    a prefix condition, up to its first wildcard."""
    for cond in op.match_conditions or ():
        if cond.match_type == "prefix":
            fixed = []
            for label in cond.path:
                if label == "*":
                    break
                fixed.append(label)
            if fixed:
                return to_namespace(fixed)
    return None


def _matches(cond: MatchCondition, ns: tuple[str, ...]) -> bool:
    path = tuple(cond.path)
    if len(ns) < len(path):
        return False
    part = ns[: len(path)] if cond.match_type == "prefix" else ns[len(ns) - len(path):]
    return all(p == "*" or p == n for p, n in zip(path, part))


def _list_namespaces(op: ListNamespacesOp, namespaces: Sequence[str]) -> list[tuple[str, ...]]:
    decoded = []
    for ns in namespaces:
        try:
            decoded.append(to_labels(ns))
        except ValueError:
            continue  # not written through labels (another client's namespace)
    kept = [ns for ns in decoded if all(_matches(c, ns) for c in op.match_conditions or ())]
    if op.max_depth is not None:
        kept = list({ns[: op.max_depth] for ns in kept})
    return sorted(kept)[op.offset: op.offset + op.limit]
