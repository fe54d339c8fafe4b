"""The requests of kgmem's REST API, one builder per route.

Each builder returns a Call: what to send and how to read the answer. The
sync and async clients (client.py) run the same Calls, so a route is
described once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, Literal, TypeVar
from urllib.parse import quote

import httpx

T = TypeVar("T")
JSON = dict[str, Any]
Ref = Mapping[str, str]
"""A record reference: {"kind": "fact"|"entity"|"episode"|"item", "id": "…"}."""

IndexSpec = Literal[False] | Sequence[str] | None
"""What of an item's value search indexes: None the whole value, False nothing, or field paths."""


@dataclass(frozen=True)
class Call(Generic[T]):
    """One request and the reader of its successful answer."""

    method: str
    path: str
    read: Callable[[httpx.Response], T]
    params: Mapping[str, str | Sequence[str]] = field(default_factory=dict)
    body: Any = None


def _json(resp: httpx.Response) -> JSON:
    out: JSON = resp.json()
    return out


def _text(resp: httpx.Response) -> str:
    return resp.text


def _none(resp: httpx.Response) -> None:
    return None


def _member(name: str) -> Callable[[httpx.Response], Any]:
    return lambda resp: resp.json()[name]


def _created(resp: httpx.Response) -> tuple[JSON, bool]:
    return resp.json(), resp.status_code == 201


def _drop_none(d: Mapping[str, Any]) -> JSON:
    return {k: v for k, v in d.items() if v is not None}


def _time(t: datetime | str | None) -> str | None:
    if isinstance(t, datetime):
        return t.isoformat()
    return t


def _params(**kw: Any) -> dict[str, str | Sequence[str]]:
    out: dict[str, str | Sequence[str]] = {}
    for k, v in kw.items():
        if v is None or v is False:
            continue
        if v is True:
            out[k] = "true"
        elif isinstance(v, (list, tuple)):
            out[k] = [str(x) for x in v]
        else:
            out[k] = str(v)
    return out


def _segment(namespace: str) -> str:
    return quote(namespace, safe="")


def healthz() -> Call[JSON]:
    return Call("GET", "/healthz", _json)


def readyz() -> Call[JSON]:
    return Call("GET", "/readyz", _json)


def openapi() -> Call[JSON]:
    return Call("GET", "/openapi.json", _json)


def metrics() -> Call[str]:
    return Call("GET", "/metrics", _text)


def add_memories(
    namespace: str,
    messages: Sequence[Mapping[str, Any]],
    *,
    thread_id: str | None = None,
    extract: bool | None = None,
    schema: Mapping[str, Any] | None = None,
    mode: Literal["sync", "async"] | None = None,
) -> Call[tuple[JSON, bool]]:
    body = _drop_none({"namespace": namespace, "thread_id": thread_id, "messages": list(messages), "extract": extract, "schema": schema, "mode": mode})
    return Call("POST", "/v1/memories", _created, body=body)


def get_job(namespace: str, job_id: str) -> Call[JSON]:
    return Call("GET", "/v1/jobs/" + quote(job_id, safe=""), _json, _params(namespace=namespace))


def list_jobs(namespace: str, *, limit: int | None = None) -> Call[list[JSON]]:
    return Call("GET", "/v1/jobs", _member("jobs"), _params(namespace=namespace, limit=limit))


def add_facts(namespace: str, facts: Sequence[Mapping[str, Any]]) -> Call[JSON]:
    return Call("POST", "/v1/facts", _json, body={"namespace": namespace, "facts": list(facts)})


def list_facts(
    namespace: str,
    *,
    entity: str | None = None,
    current_only: bool = False,
    as_of: datetime | str | None = None,
    limit: int | None = None,
    after: str | None = None,
) -> Call[JSON]:
    return Call("GET", "/v1/facts", _json, _params(namespace=namespace, entity=entity, current_only=current_only, as_of=_time(as_of), limit=limit, after=after))


def get_fact(namespace: str, fact_id: str) -> Call[JSON]:
    return Call("GET", "/v1/facts/" + quote(fact_id, safe=""), _json, _params(namespace=namespace))


def delete_fact(namespace: str, fact_id: str) -> Call[None]:
    return Call("DELETE", "/v1/facts/" + quote(fact_id, safe=""), _none, _params(namespace=namespace))


def list_entities(
    namespace: str, *, q: str | None = None, type: str | None = None, ids: Sequence[str] | None = None, limit: int | None = None, after: str | None = None
) -> Call[JSON]:
    return Call("GET", "/v1/entities", _json, _params(namespace=namespace, q=q, type=type, id=list(ids) if ids else None, limit=limit, after=after))


def get_entity(namespace: str, entity_id: str) -> Call[JSON]:
    return Call("GET", "/v1/entities/" + quote(entity_id, safe=""), _json, _params(namespace=namespace))


def list_episodes(namespace: str, *, ids: Sequence[str] | None = None, limit: int | None = None, after: str | None = None) -> Call[JSON]:
    return Call("GET", "/v1/episodes", _json, _params(namespace=namespace, id=list(ids) if ids else None, limit=limit, after=after))


def search(
    namespace: str,
    query: str,
    *,
    limit: int | None = None,
    include: Sequence[str] | None = None,
    include_history: bool | None = None,
    include_forgotten: bool | None = None,
    as_of: datetime | str | None = None,
    reinforce: bool | None = None,
    recipe: str | None = None,
) -> Call[JSON]:
    body = _drop_none({"namespace": namespace, "query": query, "limit": limit, "include": list(include) if include else None,
                       "include_history": include_history, "include_forgotten": include_forgotten, "as_of": _time(as_of), "reinforce": reinforce,
                       "recipe": recipe})
    return Call("POST", "/v1/search", _json, body=body)


def list_namespaces() -> Call[JSON]:
    return Call("GET", "/v1/namespaces", _json)


def purge_namespace(namespace: str) -> Call[JSON]:
    return Call("DELETE", "/v1/namespaces/" + _segment(namespace), _json)


def get_settings(namespace: str) -> Call[JSON]:
    return Call("GET", f"/v1/namespaces/{_segment(namespace)}/settings", _json)


def put_settings(namespace: str, settings: Mapping[str, Any]) -> Call[JSON]:
    return Call("PUT", f"/v1/namespaces/{_segment(namespace)}/settings", _json, body=dict(settings))


def sweep(namespace: str) -> Call[JSON]:
    return Call("POST", f"/v1/namespaces/{_segment(namespace)}/sweep", _json)


def feedback(namespace: str, refs: Sequence[Ref]) -> Call[JSON]:
    return Call("POST", "/v1/feedback", _json, body={"namespace": namespace, "refs": [dict(r) for r in refs]})


def pin(namespace: str, refs: Sequence[Ref], *, pinned: bool = True) -> Call[JSON]:
    return Call("POST", "/v1/pins", _json, body={"namespace": namespace, "refs": [dict(r) for r in refs], "pinned": pinned})


def restore(namespace: str, refs: Sequence[Ref]) -> Call[JSON]:
    return Call("POST", "/v1/restore", _json, body={"namespace": namespace, "refs": [dict(r) for r in refs]})


def strength(namespace: str, refs: Sequence[Ref]) -> Call[list[JSON]]:
    return Call("POST", "/v1/strength", _member("records"), body={"namespace": namespace, "refs": [dict(r) for r in refs]})


def put_item(namespace: str, key: str, value: Mapping[str, Any], *, index: IndexSpec = None, extract: bool = False,
             ttl: float | None = None) -> Call[tuple[JSON, bool]]:
    """ttl: minutes to live (0 expires at once); None never expires."""
    body: JSON = {"namespace": namespace, "key": key, "value": dict(value)}
    if extract:
        body["extract"] = True
    if ttl is not None:
        body["ttl"] = ttl
    if index is False:
        body["index"] = False
    elif index is not None:
        body["index"] = list(index)
    return Call("PUT", "/v1/items", _created, body=body)


def get_item(namespace: str, key: str, *, refresh_ttl: bool | None = None, include_expired: bool = False) -> Call[JSON]:
    """refresh_ttl: extend the item's expiry to its TTL from now (the
    server's default: True); include_expired: also return it when expired
    and not yet swept."""
    params: dict[str, str | Sequence[str]] = {"namespace": namespace, "key": key}
    if refresh_ttl is not None:
        params["refresh_ttl"] = "true" if refresh_ttl else "false"
    if include_expired:
        params["include_expired"] = "true"
    return Call("GET", "/v1/items", _json, params)


def delete_item(namespace: str, key: str) -> Call[None]:
    return Call("DELETE", "/v1/items", _none, {"namespace": namespace, "key": key})


def search_items(
    namespace_prefix: str,
    *,
    query: str | None = None,
    filter: Mapping[str, Any] | None = None,
    limit: int | None = None,
    offset: int | None = None,
    reinforce: bool | None = None,
    refresh_ttl: bool | None = None,
    include_expired: bool | None = None,
) -> Call[JSON]:
    body = _drop_none({"namespace_prefix": namespace_prefix, "query": query, "filter": dict(filter) if filter else None,
                       "limit": limit, "offset": offset, "reinforce": reinforce, "refresh_ttl": refresh_ttl,
                       "include_expired": include_expired})
    return Call("POST", "/v1/items/search", _json, body=body)


def list_item_namespaces(prefix: str | None = None, *, include_expired: bool = False) -> Call[list[str]]:
    """The namespaces holding live items below prefix; include_expired also
    those whose items all expired and await the sweeper."""
    return Call("GET", "/v1/items/namespaces", _member("namespaces"), _params(prefix=prefix, include_expired=include_expired))


MAX_BATCH_OPS = 1000
"""The most operations one POST /v1/items/batch takes."""


def batch_items(ops: Sequence[Mapping[str, Any]]) -> Call[list[JSON]]:
    """Item operations in one request: each op is {"op": "put", "namespace",
    "key", "value", "index"?, "extract"?, "ttl"?}, {"op": "get", "namespace",
    "key", "refresh_ttl"?, "include_expired"?}, {"op": "delete",
    "namespace", "key"} or {"op": "search", "namespace_prefix", ...}; the
    answer is one result per op, in order, each with its own "status"."""
    return Call("POST", "/v1/items/batch", _member("results"), body={"ops": [dict(o) for o in ops]})
