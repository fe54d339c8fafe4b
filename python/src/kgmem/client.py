"""Sync and async clients of kgmem's REST API, on httpx.

Every route of the server's OpenAPI document is a method of both clients,
named after it (put_item, search, list_facts…); _calls.py describes each
request once and both clients run it. Error answers raise KgmemError
subclasses carrying status, field and detail; 429 and 503 are retried,
honouring Retry-After.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Callable
from typing import Any, Concatenate, ParamSpec, TypeVar

import httpx

from . import _calls
from ._calls import Call
from .errors import UnreachableError, error_from_response

P = ParamSpec("P")
T = TypeVar("T")

DEFAULT_URL = "http://127.0.0.1:8080"
DEFAULT_MAX_CONNECTIONS = 8
"""Requests an AsyncKgmemClient has in flight at once, by default: a few
keep a server busy; hundreds only queue inside it (1,000 puts run ~3x
slower at 64 connections than at 8)."""
_RETRIED = (429, 503)


def _retry_delay(resp: httpx.Response, attempt: int, max_backoff: float) -> float:
    """Seconds to wait before retrying resp: Retry-After when the server sent
    one (capped at max_backoff), else exponential from 0.1 s."""
    header = resp.headers.get("Retry-After", "")
    if header.isdigit():
        return min(float(header), max_backoff)
    return min(0.1 * 2**attempt, max_backoff)


def _request(c: Call[Any]) -> dict[str, Any]:
    kw: dict[str, Any] = {"params": c.params}
    if c.body is not None:
        kw["json"] = c.body
    return kw


def _sync(builder: Callable[P, Call[T]]) -> Callable[Concatenate[KgmemClient, P], T]:
    @functools.wraps(builder)
    def method(self: KgmemClient, *args: P.args, **kwargs: P.kwargs) -> T:
        return self.call(builder(*args, **kwargs))

    return method


def _async(builder: Callable[P, Call[T]]) -> Callable[Concatenate[AsyncKgmemClient, P], Any]:
    @functools.wraps(builder)
    async def method(self: AsyncKgmemClient, *args: P.args, **kwargs: P.kwargs) -> T:
        return await self.call(builder(*args, **kwargs))

    return method


class _Base:
    def __init__(self, url: str, api_key: str | None, max_retries: int, max_backoff: float) -> None:
        self.url = url.rstrip("/")
        self.headers = {"Accept": "application/json"}
        if api_key:
            self.headers["Authorization"] = f"Bearer {api_key}"
        self.max_retries = max_retries
        self.max_backoff = max_backoff


class KgmemClient(_Base):
    """Synchronous kgmem client.

    >>> client = KgmemClient("http://127.0.0.1:8080")          # doctest: +SKIP
    >>> client.put_item("memories/alice", "tea", {"content": "Alice drinks green tea"})  # doctest: +SKIP

    Args:
        url: the server's base URL.
        api_key: an API key ("kgm_…") or the admin key; None on an open server.
        timeout: seconds per request.
        max_retries: retries of a 429 or 503 answer.
        max_backoff: the longest wait between retries, in seconds.
        http: an httpx.Client to use instead of one of the client's own.
    """

    def __init__(self, url: str = DEFAULT_URL, api_key: str | None = None, *, timeout: float = 30.0,
                 max_retries: int = 3, max_backoff: float = 10.0, http: httpx.Client | None = None) -> None:
        super().__init__(url, api_key, max_retries, max_backoff)
        self._http = http or httpx.Client(timeout=timeout)
        self._owns_http = http is None

    def call(self, c: Call[T]) -> T:
        """Sends one request, retrying 429 and 503, and reads its answer."""
        for attempt in range(self.max_retries + 1):
            try:
                resp = self._http.request(c.method, self.url + c.path, headers=self.headers, **_request(c))
            except httpx.TransportError as e:
                raise UnreachableError(self.url, e) from e
            if resp.status_code < 400:
                return c.read(resp)
            if resp.status_code not in _RETRIED or attempt == self.max_retries:
                raise error_from_response(resp)
            time.sleep(_retry_delay(resp, attempt, self.max_backoff))
        raise AssertionError("unreachable")

    def close(self) -> None:
        """Closes the HTTP connections (when the client opened them)."""
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> KgmemClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    healthz = _sync(_calls.healthz)
    readyz = _sync(_calls.readyz)
    openapi = _sync(_calls.openapi)
    metrics = _sync(_calls.metrics)
    add_memories = _sync(_calls.add_memories)
    get_job = _sync(_calls.get_job)
    list_jobs = _sync(_calls.list_jobs)
    add_facts = _sync(_calls.add_facts)
    list_facts = _sync(_calls.list_facts)
    get_fact = _sync(_calls.get_fact)
    delete_fact = _sync(_calls.delete_fact)
    list_entities = _sync(_calls.list_entities)
    get_entity = _sync(_calls.get_entity)
    list_episodes = _sync(_calls.list_episodes)
    search = _sync(_calls.search)
    list_namespaces = _sync(_calls.list_namespaces)
    purge_namespace = _sync(_calls.purge_namespace)
    get_settings = _sync(_calls.get_settings)
    put_settings = _sync(_calls.put_settings)
    sweep = _sync(_calls.sweep)
    feedback = _sync(_calls.feedback)
    pin = _sync(_calls.pin)
    restore = _sync(_calls.restore)
    strength = _sync(_calls.strength)
    put_item = _sync(_calls.put_item)
    get_item = _sync(_calls.get_item)
    delete_item = _sync(_calls.delete_item)
    search_items = _sync(_calls.search_items)
    list_item_namespaces = _sync(_calls.list_item_namespaces)
    batch_items = _sync(_calls.batch_items)


class AsyncKgmemClient(_Base):
    """Asynchronous kgmem client: the methods of KgmemClient, awaited.

    At most max_connections requests are in flight at once; the others wait
    their turn (not counted against timeout), so any number of concurrent
    calls neither exhausts the connection pool nor times out waiting for it.
    Like every httpx.AsyncClient it belongs to the event loop it is first
    used in (KgmemStore keeps one per loop).

    >>> async with AsyncKgmemClient("http://127.0.0.1:8080") as client:  # doctest: +SKIP
    ...     await client.search("memories/alice", "what does Alice drink?")

    Args:
        url, api_key, timeout, max_retries, max_backoff: as KgmemClient's.
        max_connections: requests in flight at once, and the size of the
            connection pool (all kept alive between requests).
        http: an httpx.AsyncClient to use instead of one of the client's own
            (its pool should hold max_connections).
    """

    def __init__(self, url: str = DEFAULT_URL, api_key: str | None = None, *, timeout: float = 30.0,
                 max_retries: int = 3, max_backoff: float = 10.0, max_connections: int = DEFAULT_MAX_CONNECTIONS,
                 http: httpx.AsyncClient | None = None) -> None:
        super().__init__(url, api_key, max_retries, max_backoff)
        if max_connections < 1:
            raise ValueError(f"max_connections is {max_connections}, must be at least 1")
        self.max_connections = max_connections
        limits = httpx.Limits(max_connections=max_connections, max_keepalive_connections=max_connections)
        self._http = http or httpx.AsyncClient(timeout=timeout, limits=limits)
        self._owns_http = http is None
        self._slots = asyncio.Semaphore(max_connections)

    async def call(self, c: Call[T]) -> T:
        """Sends one request, retrying 429 and 503, and reads its answer;
        waits for a free slot first when max_connections are in flight."""
        for attempt in range(self.max_retries + 1):
            async with self._slots:
                try:
                    resp = await self._http.request(c.method, self.url + c.path, headers=self.headers, **_request(c))
                except httpx.TransportError as e:
                    raise UnreachableError(self.url, e) from e
            if resp.status_code < 400:
                return c.read(resp)
            if resp.status_code not in _RETRIED or attempt == self.max_retries:
                raise error_from_response(resp)
            await asyncio.sleep(_retry_delay(resp, attempt, self.max_backoff))
        raise AssertionError("unreachable")

    async def aclose(self) -> None:
        """Closes the HTTP connections (when the client opened them)."""
        if self._owns_http:
            await self._http.aclose()

    async def __aenter__(self) -> AsyncKgmemClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    healthz = _async(_calls.healthz)
    readyz = _async(_calls.readyz)
    openapi = _async(_calls.openapi)
    metrics = _async(_calls.metrics)
    add_memories = _async(_calls.add_memories)
    get_job = _async(_calls.get_job)
    list_jobs = _async(_calls.list_jobs)
    add_facts = _async(_calls.add_facts)
    list_facts = _async(_calls.list_facts)
    get_fact = _async(_calls.get_fact)
    delete_fact = _async(_calls.delete_fact)
    list_entities = _async(_calls.list_entities)
    get_entity = _async(_calls.get_entity)
    list_episodes = _async(_calls.list_episodes)
    search = _async(_calls.search)
    list_namespaces = _async(_calls.list_namespaces)
    purge_namespace = _async(_calls.purge_namespace)
    get_settings = _async(_calls.get_settings)
    put_settings = _async(_calls.put_settings)
    sweep = _async(_calls.sweep)
    feedback = _async(_calls.feedback)
    pin = _async(_calls.pin)
    restore = _async(_calls.restore)
    strength = _async(_calls.strength)
    put_item = _async(_calls.put_item)
    get_item = _async(_calls.get_item)
    delete_item = _async(_calls.delete_item)
    search_items = _async(_calls.search_items)
    list_item_namespaces = _async(_calls.list_item_namespaces)
    batch_items = _async(_calls.batch_items)
