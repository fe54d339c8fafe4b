"""KgmemStore: a LangGraph store (BaseStore) on a kgmem server.

Swap ``InMemoryStore()`` or ``PostgresStore`` for ``KgmemStore(url=…)`` and
LangGraph's items live in kgmem: stored per namespace, searched by kgmem's
hybrid retrieval (BM25 + vector, decay-weighted) and, with extraction
configured on the server, turned into a knowledge graph.

How BaseStore maps onto kgmem:

- a namespace tuple is one kgmem namespace, label by label
  (kgmem.namespaces.to_namespace);
- put/get/delete are PUT/GET/DELETE /v1/items; ``index`` is passed through
  (None: the store's index fields, else the whole value; False: not
  searched; a list: those fields); the
  empty key, which kgmem keys cannot be, is stored as "␀" (and a key
  starting with "␀" takes one more);
- search(prefix, query, filter, limit, offset) is POST /v1/items/search,
  page by page for any limit and offset: ranked items first (``score`` is
  kgmem's final score), then the other matching items unranked, most
  recently updated first; the empty prefix searches every top-level
  namespace the key may read and merges them; infinities and NaN in a
  filter (which JSON cannot carry) are turned into what they mean;
- list_namespaces is GET /v1/items/namespaces with LangGraph's match
  conditions and max_depth applied to the decoded tuples;
- a batch runs its operations side by side, round by round, and sends the
  item requests of a round (put, get, delete, search pages) together in
  POST /v1/items/batch requests of up to 1,000 operations; the async calls
  made at once on one event loop are grouped into one batch;
- TTL is supported (``supports_ttl``): a put's ``ttl`` (minutes) is the
  item's kgmem TTL, ``refresh_ttl`` on get and search extends it as
  LangGraph's stores do, and ``TTLConfig`` is taken (``default_ttl``,
  ``refresh_on_read``, ``omit_expired``, ``sweep_interval_minutes``). The
  server hides what expired from every read (``omit_expired`` True) or, as
  LangGraph's default, shows it until the server's sweeper deletes it;
  ``start_ttl_sweeper`` also sweeps from the store. Items are exempt from
  kgmem's forgetting: an item lives until it is deleted or expires.
"""

from __future__ import annotations

import asyncio
import math
import threading

import httpx
from collections.abc import Awaitable, Callable, Generator, Iterable, Sequence
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
    TTLConfig,
)

try:
    from langgraph.store.base import validate_op_namespace
except ImportError:  # langgraph-checkpoint before 4.3: BaseStore's methods validate, batch() does not
    def validate_op_namespace(op: Op) -> None:
        """Nothing to check against in this LangGraph version."""

from . import _calls
from ._calls import Call
from .client import DEFAULT_URL, AsyncKgmemClient, KgmemClient
from .errors import KgmemError, NotFoundError, error_from_response
from .namespaces import to_labels, to_namespace

_PAGE = 100  # the server's largest item page
_MAX_OFFSET = 100_000  # the server's largest item search offset (and scan)
_FEEDBACK_CHUNK = 1000  # the most refs one feedback request names
_SEARCH_BATCH = 100  # the most searches one batch request carries
# The most puts, gets and deletes one batch request carries: fewer than the
# route takes (MAX_BATCH_OPS), so that one request stays a few seconds on a
# busy Neo4j, whose puts are write transactions each, and several run side
# by side.
_OPS_BATCH = 250
_EMPTY_KEY = "\u2400"  # "␀": the kgmem key of LangGraph's empty key (kgmem keys are 1+ bytes)
_MAX_FLOAT = 1.7976931348623157e308

Plan = Generator[list[Call[Any]], list[Any], Any]
"""One operation as the requests it sends: each yield is a list of requests
the driver may run concurrently, answered by the list of their answers (or
by throwing the KgmemError one of them raised); the return is the result."""


class KgmemStore(BaseStore):
    """A LangGraph BaseStore whose items live in kgmem.

    It serves both the sync (``batch``) and the async (``abatch``) methods,
    the async ones from any event loop: the store opens one async client per
    loop on first use there. A batch runs as LangGraph's InMemoryStore does:
    its reads (each distinct one once) see the store as it was before the
    batch, then its writes apply, the last write of a key winning. Item
    operations go to the server in batch requests of up to 1,000; the async
    calls made at once on one loop (aput, aget, asearch…) form one batch,
    and at most the client's max_connections requests are in flight. An
    operation's error fails only the call that made it.

    Args:
        url: the kgmem server's base URL.
        api_key: an API key or the admin key; None on an open server.
        extract: turn every item put into facts with the server's LLM (the
            item is their provenance; rewriting or deleting it updates them).
        client: a sync client to use instead of the store's own.
        async_client: an async client to use instead of the store's own;
            it is bound to one event loop, so the store is then usable from
            that loop only.
        max_connections: requests in flight at once on each of the store's
            own async clients.
        index: LangGraph's index configuration, as far as kgmem takes it:
            ``{"fields": [...]}``, the JSON paths of the value embedded and
            searched when a put names none (default: the whole value). kgmem
            embeds with the server's model, so ``dims``, ``embed`` and the
            vector index's settings are refused with a ValueError.
        ttl: LangGraph's TTL configuration: ``default_ttl`` (minutes) for
            puts that give none, ``refresh_on_read`` (default True),
            ``omit_expired`` (default False: an expired item is read until
            the server's sweeper deletes it; True hides it at once) and
            ``sweep_interval_minutes`` for ``start_ttl_sweeper``.
    """

    supports_ttl: bool = True

    def __init__(self, url: str = DEFAULT_URL, api_key: str | None = None, *, extract: bool = False,
                 client: KgmemClient | None = None, async_client: AsyncKgmemClient | None = None,
                 max_connections: int | None = None, index: dict[str, Any] | None = None,
                 ttl: TTLConfig | None = None) -> None:
        self.extract = extract
        self.ttl_config = None if ttl is None else TTLConfig(**ttl)
        self._sweeper: threading.Thread | None = None
        self._sweeper_stop = threading.Event()
        self.fields = _index_fields(index)
        self.client = client or KgmemClient(url, api_key)
        self._url, self._api_key, self._max_connections = url, api_key, max_connections
        self._given_async = async_client
        self._async_clients: dict[asyncio.AbstractEventLoop, AsyncKgmemClient] = {}
        self._queues: dict[asyncio.AbstractEventLoop, _Queue] = {}

    @property
    def async_client(self) -> AsyncKgmemClient:
        """The async client of the running event loop, opened on first use
        in that loop (or the one given to the constructor)."""
        if self._given_async is not None:
            return self._given_async
        loop = asyncio.get_running_loop()
        c = self._async_clients.get(loop)
        if c is None:
            # A closed loop's client can never run again; its sockets close
            # when it is collected.
            for dead in [lp for lp in self._async_clients if lp.is_closed()]:
                del self._async_clients[dead]
            kw = {} if self._max_connections is None else {"max_connections": self._max_connections}
            c = self._async_clients[loop] = AsyncKgmemClient(self._url, self._api_key, **kw)
        return c

    def setup(self) -> None:
        """Checks that the server answers. LangGraph's SQL stores create
        their tables here; a kgmem server keeps its own schema, so there is
        nothing to migrate."""
        self.client.readyz()

    # --- BaseStore ---

    @property
    def _omit_expired(self) -> bool:
        return bool(self.ttl_config and self.ttl_config.get("omit_expired"))

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        _split(ops)
        return _raise_first(_drive(_batch_plan(ops, self.extract, self.fields, self._omit_expired), self.client))

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """Runs ops; the async calls made at the same time on one event loop
        (LangGraph's aput/aget/asearch… each call abatch) are grouped into
        one batch, whose item operations go to the server in requests of up
        to 1,000 operations (POST /v1/items/batch)."""
        ops = list(ops)
        _split(ops)  # a refused batch fails its caller only
        loop = asyncio.get_running_loop()
        q = self._queues.get(loop)
        if q is None:
            for dead in [lp for lp in self._queues if lp.is_closed()]:
                del self._queues[dead]
            q = self._queues[loop] = _Queue()
        fut: asyncio.Future[list[Result]] = loop.create_future()
        q.pending.append((ops, fut))
        if q.task is None or q.task.done():
            q.task = loop.create_task(self._flush(q, self.async_client))
        return await fut

    async def _flush(self, q: _Queue, c: AsyncKgmemClient) -> None:
        """Runs what callers queued, as one batch per round, until the
        queue is empty; each caller gets its results or its first error."""
        while q.pending:
            group, q.pending = q.pending, []
            ops = [op for mine, _ in group for op in mine]
            try:
                outcomes = await _adrive(_batch_plan(ops, self.extract, self.fields, self._omit_expired), c)
            except BaseException as e:  # noqa: BLE001 - handed to every caller
                for _, fut in group:
                    if not fut.done():
                        fut.set_exception(e)
                if isinstance(e, asyncio.CancelledError):
                    raise
                continue
            k = 0
            for mine, fut in group:
                part, k = outcomes[k: k + len(mine)], k + len(mine)
                if fut.done():
                    continue  # its caller was cancelled
                err = next((o for o in part if isinstance(o, BaseException)), None)
                if err is not None:
                    fut.set_exception(err)
                else:
                    fut.set_result(part)


    # --- TTL sweeping, as LangGraph's SQL stores have it ---

    def sweep_ttl(self) -> int:
        """Deletes the expired items of every namespace the key reads now
        (POST /v1/namespaces/{ns}/sweep, which also runs the namespace's
        forgetting sweep) and returns how many it deleted. The server does
        the same on its own every ``--ttl-sweep-interval``."""
        deleted = 0
        for ns in self.client.list_item_namespaces(include_expired=True):
            deleted += int(self.client.sweep(ns).get("expired_items", 0))
        return deleted

    def start_ttl_sweeper(self, sweep_interval_minutes: float | None = None) -> threading.Thread:
        """Sweeps (``sweep_ttl``) from this store every
        ``sweep_interval_minutes`` (default: the TTL configuration's, else 5)
        in a background thread until ``stop_ttl_sweeper``; returns the thread."""
        if self._sweeper is not None and self._sweeper.is_alive():
            return self._sweeper
        interval = sweep_interval_minutes or (self.ttl_config or {}).get("sweep_interval_minutes") or 5
        self._sweeper_stop.clear()
        stop = self._sweeper_stop

        def loop() -> None:
            while not stop.wait(interval * 60):
                try:
                    self.sweep_ttl()
                except KgmemError:
                    pass  # the next sweep tries again; the server sweeps too

        self._sweeper = threading.Thread(target=loop, name="kgmem-ttl-sweeper", daemon=True)
        self._sweeper.start()
        return self._sweeper

    def stop_ttl_sweeper(self, timeout: float | None = None) -> bool:
        """Stops the store's sweeper thread; True when it has stopped (or
        none ran) within timeout seconds."""
        if self._sweeper is None:
            return True
        self._sweeper_stop.set()
        self._sweeper.join(timeout)
        stopped = not self._sweeper.is_alive()
        if stopped:
            self._sweeper = None
        return stopped


class AsyncKgmemStore(KgmemStore):
    """KgmemStore whose TTL sweeper methods are coroutines, as those of
    LangGraph's async stores (AsyncPostgresStore, AsyncSqliteStore) are;
    everything else is KgmemStore's."""

    async def start_ttl_sweeper(self, sweep_interval_minutes: float | None = None) -> threading.Thread:  # type: ignore[override]
        return KgmemStore.start_ttl_sweeper(self, sweep_interval_minutes)

    async def stop_ttl_sweeper(self, timeout: float | None = None) -> bool:  # type: ignore[override]
        return await asyncio.to_thread(KgmemStore.stop_ttl_sweeper, self, timeout)


class _Queue:
    """The async calls waiting for the next batch on one event loop."""

    def __init__(self) -> None:
        self.pending: list[tuple[list[Op], asyncio.Future[list[Result]]]] = []
        self.task: asyncio.Task[None] | None = None


def _split(ops: Iterable[Op]) -> tuple[list[tuple[int, Op]], list[tuple[int, PutOp]]]:
    """The batch's reads and writes with their positions; an unknown
    operation, an invalid namespace label (InvalidNamespaceError) or a TTL
    is refused before anything is sent."""
    reads: list[tuple[int, Op]] = []
    writes: list[tuple[int, PutOp]] = []
    for i, op in enumerate(ops):
        validate_op_namespace(op)
        if isinstance(op, PutOp):
            if op.value is not None:
                _check_ttl(op.ttl)
            writes.append((i, op))
        elif isinstance(op, (GetOp, SearchOp, ListNamespacesOp)):
            reads.append((i, op))
        else:
            raise ValueError(f"KgmemStore: unknown operation {op!r}")
    return reads, writes


def _raise_first(outcomes: list[Any]) -> list[Result]:
    for o in outcomes:
        if isinstance(o, BaseException):
            raise o
    return outcomes


Outcome = Any
"""A request's answer, or the KgmemError it raised (an exception instance)."""

Steps = Generator[list[Call[Any]], list[Outcome], list[Outcome]]
"""Requests in rounds: each yield is a list of requests the driver may run
at once, answered by their outcomes; the return is one outcome per op."""


def _batch_plan(ops: list[Op], extract: bool, fields: list[str] | None, omit_expired: bool = False) -> Steps:
    """A batch as LangGraph's InMemoryStore runs it: its reads (each
    distinct one once) see the store as it was before the batch, then its
    writes apply, the last write of a key winning. Every operation's
    requests go out together, round by round."""
    reads, writes = _split(ops)
    outcomes: list[Outcome] = [None] * len(ops)
    distinct: dict[Any, int] = {}
    plans: list[Plan] = []
    slot: list[int] = []  # read i's plan
    for _, op in reads:
        key = _dedupe_key(op)
        if key is None or key not in distinct:
            plans.append(_plan(op, extract, fields, omit_expired))
            if key is not None:
                distinct[key] = len(plans) - 1
            slot.append(len(plans) - 1)
        else:
            slot.append(distinct[key])
    done = yield from _lockstep(plans)
    for (i, _), j in zip(reads, slot):
        outcomes[i] = done[j]
    last = _last_writes(writes)
    done = yield from _lockstep([_plan(op, extract, fields, omit_expired) for _, op in last])
    for (i, _), o in zip(last, done):
        outcomes[i] = o
    return outcomes


def _dedupe_key(op: Op) -> Any:
    """The op itself when it can key a dict (a search with a filter cannot)."""
    try:
        hash(op)
    except TypeError:
        return None
    return op


def _lockstep(plans: list[Plan]) -> Steps:
    """Runs plans side by side: each round sends every running plan's next
    requests at once; a plan's result, or the error it ends with, is its
    outcome."""
    outcomes: list[Outcome] = [None] * len(plans)
    replies: dict[int, list[Outcome] | None] = dict.fromkeys(range(len(plans)))
    while replies:
        step: list[tuple[int, list[Call[Any]]]] = []
        for i, reply in list(replies.items()):
            err = next((a for a in reply or () if isinstance(a, BaseException)), None)
            try:
                calls = plans[i].throw(err) if err is not None else plans[i].send(reply)  # type: ignore[arg-type]
            except StopIteration as done:
                outcomes[i] = done.value
                del replies[i]
                continue
            except (KgmemError, ValueError) as e:
                outcomes[i] = e
                del replies[i]
                continue
            step.append((i, calls))
        if not step:
            break
        answers = yield [c for _, calls in step for c in calls]
        k = 0
        for i, calls in step:
            replies[i], k = answers[k: k + len(calls)], k + len(calls)
    return outcomes


def _last_writes(writes: list[tuple[int, PutOp]]) -> list[tuple[int, PutOp]]:
    """The batch's writes, the last of each (namespace, key) only."""
    last: dict[tuple[tuple[str, ...], str], tuple[int, PutOp]] = {}
    for i, op in writes:
        last.pop((tuple(op.namespace), op.key), None)
        last[(tuple(op.namespace), op.key)] = (i, op)
    return list(last.values())


async def _bounded(jobs: Sequence[Callable[[], Awaitable[None]]], n: int) -> None:
    """Runs jobs, at most n at once (n workers, not one task per job); the
    first failure cancels the rest and is raised."""
    if not jobs:
        return
    it = iter(jobs)

    async def worker() -> None:
        for job in it:
            await job()

    tasks = [asyncio.ensure_future(worker()) for _ in range(min(n, len(jobs)))]
    try:
        await asyncio.gather(*tasks)
    except BaseException:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


def _as_op(c: Call[Any]) -> dict[str, Any] | None:
    """The batch operation of an item request; None for other requests and
    for a put with extraction (an LLM call each: one batch of them would
    outlast the server's request timeout)."""
    match c.method, c.path:
        case "PUT", "/v1/items":
            return None if c.body.get("extract") else {"op": "put", **c.body}
        case "GET", "/v1/items":
            op: dict[str, Any] = {"op": "get", "namespace": c.params["namespace"], "key": c.params["key"]}
            if "refresh_ttl" in c.params:
                op["refresh_ttl"] = c.params["refresh_ttl"] == "true"
            if "include_expired" in c.params:
                op["include_expired"] = c.params["include_expired"] == "true"
            return op
        case "DELETE", "/v1/items":
            return {"op": "delete", "namespace": c.params["namespace"], "key": c.params["key"]}
        case "POST", "/v1/items/search":
            return {"op": "search", **c.body}
    return None


def _answer(c: Call[Any], res: dict[str, Any]) -> Outcome:
    """A batch operation's result as its own request's answer (or error)."""
    status = res["status"]
    if status >= 400:
        problem = {"type": "about:blank", **(res.get("error") or {"title": "", "detail": "", "status": status})}
        return error_from_response(httpx.Response(status, json=problem))
    if status == 204:
        return c.read(httpx.Response(status))
    body = res["item"] if "item" in res else {"items": res.get("items", []), "warnings": res.get("warnings", [])}
    return c.read(httpx.Response(status, json=body))


def _chunks(calls: list[Call[Any]]) -> tuple[list[list[int]], list[int]]:
    """The positions of the item requests in batches — at most
    _OPS_BATCH puts, gets and deletes, or _SEARCH_BATCH searches (each
    reads its whole prefix: smaller batches keep a request short and let
    the server run them side by side) — and those of the other requests
    (and of a lone item request, sent as itself)."""
    ops = [_as_op(c) for c in calls]
    searches = [i for i, o in enumerate(ops) if o is not None and o["op"] == "search"]
    others = [i for i, o in enumerate(ops) if o is not None and o["op"] != "search"]
    single = [i for i, o in enumerate(ops) if o is None]
    batches = [others[k: k + _OPS_BATCH] for k in range(0, len(others), _OPS_BATCH)]
    batches += [searches[k: k + _SEARCH_BATCH] for k in range(0, len(searches), _SEARCH_BATCH)]
    single += [b[0] for b in batches if len(b) == 1]
    return [b for b in batches if len(b) > 1], sorted(single)


def _drive(steps: Steps, c: KgmemClient) -> list[Outcome]:
    """Runs a batch's rounds on the sync client, item requests in batches."""
    answers: list[Outcome] | None = None
    while True:
        try:
            calls = steps.send(answers)  # type: ignore[arg-type]
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]
        answers = [None] * len(calls)
        batches, single = _chunks(calls)
        todo = list(batches)
        while todo:
            idx = todo.pop()
            _put(answers, calls, idx, _try(lambda idx=idx: c.batch_items([_as_op(calls[i]) for i in idx])))
            for i in idx:
                if isinstance(answers[i], _Retry):
                    answers[i] = _try(lambda i=i: c.call(calls[i]))
            todo += list({id(a.part): a.part for i in idx if isinstance(a := answers[i], _Split)}.values())
        for i in single:
            answers[i] = _try(lambda i=i: c.call(calls[i]))


async def _adrive(steps: Steps, c: AsyncKgmemClient) -> list[Outcome]:
    """Runs a batch's rounds on the async client: each round's requests at
    once (at most the client's max_connections in flight), item requests
    in batches."""
    answers: list[Outcome] | None = None
    while True:
        try:
            calls = steps.send(answers)  # type: ignore[arg-type]
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]
        out: list[Outcome] = [None] * len(calls)
        answers = out
        batches, single = _chunks(calls)

        async def one(i: int) -> None:
            out[i] = await _atry(c.call(calls[i]))

        async def many(idx: list[int]) -> None:
            _put(out, calls, idx, await _atry(c.batch_items([_as_op(calls[i]) for i in idx])))
            for i in idx:
                if isinstance(out[i], _Retry):
                    await one(i)
            for part in {id(a.part): a.part for i in idx if isinstance(a := out[i], _Split)}.values():
                await many(part)

        jobs: list[Callable[[], Awaitable[None]]] = [lambda idx=idx: many(idx) for idx in batches]
        jobs += [lambda i=i: one(i) for i in single]
        await _bounded(jobs, c.max_connections)


class _Split:
    """The mark of a request whose batch was too large for the server's
    body limit (413): its half of the batch is sent again as a batch."""

    def __init__(self, part: list[int]) -> None:
        self.part = part


class _Retry:
    """The mark of a request whose batch was refused as a whole: it is
    sent on its own, so that it alone gets its error."""


def _put(out: list[Outcome], calls: list[Call[Any]], idx: list[int], res: Outcome) -> None:
    """Spreads a batch request's answer over its operations."""
    if isinstance(res, KgmemError) and res.status == 413 and len(idx) > 1:
        half = len(idx) // 2
        for part in (idx[:half], idx[half:]):
            for i in part:
                out[i] = _Split(part)
        return
    if isinstance(res, KgmemError) and 400 <= res.status < 500 and res.status != 429:
        for i in idx:
            out[i] = _Retry()
        return
    if isinstance(res, BaseException):
        for i in idx:
            out[i] = res
        return
    for i, r in zip(idx, res):
        out[i] = _answer(calls[i], r)


def _try(f: Callable[[], Any]) -> Outcome:
    try:
        return f()
    except KgmemError as e:
        return e


async def _atry(a: Awaitable[Any]) -> Outcome:
    try:
        return await a
    except KgmemError as e:
        return e


def _plan(op: Op, extract: bool, fields: list[str] | None = None, omit_expired: bool = False) -> Plan:
    """The requests of one operation and its result."""
    match op:
        case GetOp(namespace=ns, key=key, refresh_ttl=refresh):
            try:
                (it,) = yield [_calls.get_item(to_namespace(ns), _server_key(key), refresh_ttl=refresh,
                                               include_expired=not omit_expired)]
            except NotFoundError:
                return None
            return _item(it)
        case PutOp(namespace=ns, key=key, value=None):
            try:
                yield [_calls.delete_item(to_namespace(ns), _server_key(key))]
            except NotFoundError:
                pass
            return None
        case PutOp(namespace=ns, key=key, value=value, index=index, ttl=ttl):
            _check_ttl(ttl)
            yield [_calls.put_item(to_namespace(ns), _server_key(key), value, index=_index(index, fields), extract=extract,
                                   ttl=ttl)]
            return None
        case SearchOp():
            return (yield from _search(op, omit_expired))
        case ListNamespacesOp():
            (namespaces,) = yield [_calls.list_item_namespaces(_list_prefix(op), include_expired=not omit_expired)]
            return _list_namespaces(op, namespaces)
    raise ValueError(f"KgmemStore: unknown operation {op!r}")


def _search(op: SearchOp, omit_expired: bool = False) -> Plan:
    """A search as LangGraph's stores answer it, any limit and offset: the
    server's pages (at most 100 items) are read until the page is full; the
    empty prefix searches each top-level namespace and merges them."""
    if op.limit <= 0:
        return []
    flt = _finite_filter(op.filter)
    if flt is None:
        return []
    query = op.query or None
    if op.namespace_prefix:
        prefixes = [to_namespace(op.namespace_prefix)]
    else:
        (namespaces,) = yield [_calls.list_item_namespaces(include_expired=not omit_expired)]
        prefixes = _roots(namespaces)
    if not prefixes:
        return []
    # One request reinforces what it returns on the server; a search of
    # several requests must not reorder its own later pages, so it reinforces
    # what it returns once it has all of it.
    single = len(prefixes) == 1 and op.limit <= _PAGE
    reinforce = None if single else False
    read = {"refresh_ttl": op.refresh_ttl, "include_expired": not omit_expired}
    if len(prefixes) == 1:
        found = (yield from _pages(prefixes, query, flt, op.offset, op.limit, reinforce, read))[0]
    else:
        per_root = yield from _pages(prefixes, query, flt, 0, op.offset + op.limit, reinforce, read)
        found = _merge([it for r in per_root for it in r])[op.offset: op.offset + op.limit]
    if not single and query:
        yield from _reinforce(found)
    return [_search_item(it) for it in found]


def _pages(prefixes: list[str], query: str | None, flt: dict[str, Any] | None, start: int, count: int,
           reinforce: bool | None, read: dict[str, bool]) -> Generator[list[Call[Any]], list[Any], list[list[dict[str, Any]]]]:
    """Up to count results of each prefix from offset start, page by page
    (the prefixes' pages requested together); read says how expiring items
    are read (refresh_ttl, include_expired)."""
    out: list[list[dict[str, Any]]] = [[] for _ in prefixes]
    # Past the server's largest offset there is nothing: no search reads more items.
    pending = list(range(len(prefixes))) if start <= _MAX_OFFSET else []
    while pending:
        asked = []
        for i in pending:
            limit = min(_PAGE, count - len(out[i]))
            asked.append((i, limit))
        answers = yield [_calls.search_items(prefixes[i], query=query, filter=flt, limit=limit,
                                             offset=start + len(out[i]), reinforce=reinforce, **read) for i, limit in asked]
        pending = []
        for (i, limit), res in zip(asked, answers):
            out[i].extend(res["items"])
            if len(res["items"]) == limit and len(out[i]) < count and start + len(out[i]) <= _MAX_OFFSET:
                pending.append(i)
    return out


def _reinforce(found: list[dict[str, Any]]) -> Generator[list[Call[Any]], list[Any], None]:
    """Records the ranked items returned as recalled, as one search request
    does (best effort: a server without reinforcement answers 409)."""
    by_ns: dict[str, list[dict[str, str]]] = {}
    for it in found:
        if it.get("score"):
            by_ns.setdefault(it["namespace"], []).append({"kind": "item", "id": it["id"]})
    for ns, refs in by_ns.items():
        for i in range(0, len(refs), _FEEDBACK_CHUNK):
            try:
                yield [_calls.feedback(ns, refs[i: i + _FEEDBACK_CHUNK])]
            except KgmemError:
                return


def _finite_filter(flt: dict[str, Any] | None) -> dict[str, Any] | None:
    """The filter as JSON can carry it: JSON has no infinity or NaN, so a
    condition on one becomes what it means for the JSON numbers a value
    holds ({"$lt": inf}: any number, {"$gt": inf}: none, {"$ne": nan}:
    anything). None when the filter matches nothing; {} when everything."""
    if not flt:
        return {}
    out: dict[str, Any] = {}
    for member, cond in flt.items():
        if isinstance(cond, dict) and any(str(k).startswith("$") for k in cond):
            ops: dict[str, Any] = {}
            for name, arg in cond.items():
                if not isinstance(arg, float) or math.isfinite(arg):
                    ops[name] = arg
                    continue
                match name, arg:
                    case "$ne", _:
                        continue  # no JSON value is inf or nan
                    case ("$lt" | "$lte"), a if a == math.inf:
                        ops.setdefault("$lte", _MAX_FLOAT)
                    case ("$gt" | "$gte"), a if a == -math.inf:
                        ops.setdefault("$gte", -_MAX_FLOAT)
                    case ("$eq" | "$gt" | "$gte" | "$lt" | "$lte"), _:
                        return None  # no number is above inf, below -inf, equal to either, or compares with nan
                    case _:
                        ops[name] = arg  # an unknown operator: the server names it
            if ops:
                out[member] = ops
        elif _has_non_finite(cond):
            return None  # no JSON value equals one holding inf or nan
        else:
            out[member] = cond
    return out


def _has_non_finite(v: Any) -> bool:
    if isinstance(v, float):
        return not math.isfinite(v)
    if isinstance(v, dict):
        return any(_has_non_finite(x) for x in v.values())
    if isinstance(v, (list, tuple)):
        return any(_has_non_finite(x) for x in v)
    return False


def _server_key(key: str) -> str:
    """The kgmem key of a LangGraph key: the same, but for the empty key
    (kgmem keys have at least one byte) and keys starting with "␀", which
    take a leading "␀"."""
    return _EMPTY_KEY + key if key == "" or key.startswith(_EMPTY_KEY) else key


def _store_key(key: str) -> str:
    """The LangGraph key of a kgmem key (_server_key undone)."""
    return key[1:] if key.startswith(_EMPTY_KEY) else key


def _check_ttl(ttl: Any) -> None:
    """A TTL is None (never expires) or a number of minutes >= 0."""
    if ttl is None:
        return
    if isinstance(ttl, bool) or not isinstance(ttl, (int, float)) or not math.isfinite(ttl) or ttl < 0:
        raise ValueError(f"KgmemStore: ttl must be None or a number of minutes >= 0, not {ttl!r}")


_INDEX_KEYS = frozenset({"fields"})


def _index_fields(index: dict[str, Any] | None) -> list[str] | None:
    """The store-wide fields of LangGraph's index configuration; what
    kgmem does not take is refused, naming it."""
    if index is None:
        return None
    if not isinstance(index, dict):
        raise ValueError(f"KgmemStore: index must be a dict such as {{'fields': ['text']}}, not {type(index).__name__}")
    other = sorted(set(index) - _INDEX_KEYS)
    if other:
        raise ValueError(f"KgmemStore: index {', '.join(other)} not supported: kgmem embeds with the server's "
                         "embedding model (configure it on the server); only index['fields'] is taken")
    fields = index.get("fields")
    if fields is None:
        return None
    if isinstance(fields, str) or not all(isinstance(f, str) for f in fields):
        raise ValueError("KgmemStore: index['fields'] must be a list of JSON paths (strings)")
    return list(fields)


def _index(index: Any, fields: list[str] | None = None) -> Any:
    """LangGraph's index argument as kgmem takes it: None, False or fields
    (None: the store's fields, if it has any)."""
    if index is None:
        return fields
    if index is False:
        return index
    return list(index)


def _time(s: str) -> datetime:
    return datetime.fromisoformat(s.replace("Z", "+00:00"))


def _item(it: dict[str, Any]) -> Item:
    return Item(value=it["value"], key=_store_key(it["key"]), namespace=to_labels(it["namespace"]),
                created_at=_time(it["created_at"]), updated_at=_time(it["updated_at"]))


def _score(it: dict[str, Any]) -> float | None:
    score = it.get("score")
    return float(score["final"]) if score else None


def _search_item(it: dict[str, Any]) -> SearchItem:
    return SearchItem(namespace=to_labels(it["namespace"]), key=_store_key(it["key"]), value=it["value"],
                      created_at=_time(it["created_at"]), updated_at=_time(it["updated_at"]), score=_score(it))


def _roots(namespaces: Sequence[str]) -> list[str]:
    """The first segments of namespaces, each once, in order."""
    return list(dict.fromkeys(ns.split("/", 1)[0] for ns in namespaces))


def _merge(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Orders the results of several roots as one search would: ranked
    items by score, then unranked ones, most recently updated first."""
    ranked = sorted((it for it in items if _score(it) is not None), key=lambda it: -(_score(it) or 0.0))
    rest = sorted((it for it in items if _score(it) is None), key=lambda it: _time(it["updated_at"]), reverse=True)
    return ranked + rest


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
