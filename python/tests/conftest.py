"""Fixtures: real kgmem servers, built from this repository and started on
loopback for the session, one per backend pair — SQLite + HNSW always, Neo4j
+ Milvus when scripts/test.sh started them (KGMEM_TEST_NEO4J_URI and
KGMEM_TEST_MILVUS_ADDR; under CI their absence fails the run)."""

from __future__ import annotations

import hashlib
import os
import socket
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore

from kgmem import KgmemClient
from kgmem.langgraph import KgmemStore

REPO = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def kgmem_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The kgmem server binary, built from this checkout (or $KGMEM_BIN)."""
    if os.environ.get("KGMEM_BIN"):
        return Path(os.environ["KGMEM_BIN"])
    out = tmp_path_factory.mktemp("bin") / "kgmem"
    subprocess.run(["go", "build", "-o", str(out), "./cmd/server"], cwd=REPO, check=True)
    return out


def _backend_pairs() -> list[str]:
    pairs = ["sqlite+hnsw"]
    neo4j, milvus = os.environ.get("KGMEM_TEST_NEO4J_URI"), os.environ.get("KGMEM_TEST_MILVUS_ADDR")
    if neo4j and milvus:
        pairs.append("neo4j+milvus")
    elif os.environ.get("CI"):
        raise RuntimeError("CI: KGMEM_TEST_NEO4J_URI and KGMEM_TEST_MILVUS_ADDR must name running servers (scripts/test.sh starts them)")
    return pairs


class Server:
    """A kgmem server process on a free loopback port."""

    def __init__(self, binary: Path, data: Path, pair: str, *flags: str) -> None:
        self.url = f"http://127.0.0.1:{_free_port()}"
        # The hash embedder on both pairs, whatever this machine has installed:
        # --embedder auto would take the static model where it is (CI), and
        # score-sensitive tests must not depend on the machine.
        # The server's own TTL sweeper is off: the TTL tests sweep from the
        # store when they mean to (start_ttl_sweeper), so an expired item a
        # test reads on purpose is never deleted under it.
        args = [str(binary), "serve", "--addr", self.url.removeprefix("http://"), "--data-dir", str(data), "--ui=false",
                "--embedder", "hash", "--ttl-sweep-interval", "0", *flags]
        if pair == "neo4j+milvus":
            # A scope of its own: API keys live in Neo4j, and another suite's
            # key in the shared scope would close this server.
            args += ["--graph", "neo4j", "--neo4j-uri", os.environ["KGMEM_TEST_NEO4J_URI"], "--neo4j-scope", "py" + uuid.uuid4().hex[:12],
                     "--vector", "milvus", "--milvus-addr", os.environ["KGMEM_TEST_MILVUS_ADDR"],
                     "--milvus-collection", "py_" + uuid.uuid4().hex[:12]]
        self.log = data.parent / (data.name + ".log")
        self.proc = subprocess.Popen(args, stdout=self.log.open("w"), stderr=subprocess.STDOUT,
                                     env={**os.environ, "KGMEM_LOG_LEVEL": "warn"})
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(self.url + "/readyz", timeout=2).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"kgmem did not start ({pair}):\n" + self.log.read_text())
            time.sleep(0.2)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()


class Servers:
    """Starts one server per backend pair on first use; stops them all at the end."""

    def __init__(self, binary: Path, tmp: pytest.TempPathFactory) -> None:
        self.binary, self.tmp = binary, tmp
        self.running: dict[str, Server] = {}

    def get(self, pair: str) -> Server:
        if pair not in self.running:
            self.running[pair] = Server(self.binary, self.tmp.mktemp("data"), pair)
        return self.running[pair]

    def stop(self) -> None:
        for srv in self.running.values():
            srv.stop()

    def failures(self) -> list[str]:
        """The servers' logged request failures (5xx answers), by pair."""
        return [f"{pair}: {line}" for pair, srv in self.running.items()
                for line in srv.log.read_text(errors="replace").splitlines() if "level=ERROR" in line]


_SERVER_FAILURES = pytest.StashKey[list[str]]()


@pytest.fixture(scope="session")
def servers(request: pytest.FixtureRequest, kgmem_bin: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servers]:
    s = Servers(kgmem_bin, tmp_path_factory)
    yield s
    s.stop()
    request.config.stash[_SERVER_FAILURES] = s.failures()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    """Prints what the servers logged as failed, so a 500 in a test's
    traceback comes with its cause from the server log."""
    failures = config.stash.get(_SERVER_FAILURES, [])
    if failures:
        terminalreporter.section("kgmem server errors")
        for line in failures[:50]:
            terminalreporter.line(line)


@pytest.fixture(params=_backend_pairs())
def server(request: pytest.FixtureRequest, servers: Servers) -> Server:
    """A kgmem server over each backend pair (started once per session)."""
    return servers.get(request.param)


@pytest.fixture
def root() -> str:
    """A namespace root label no other test uses (the Neo4j database is shared)."""
    return "t" + uuid.uuid4().hex[:10]


@pytest.fixture
def client(server: Server) -> Iterator[KgmemClient]:
    with KgmemClient(server.url) as c:
        yield c


def fake_embed(texts: list[str]) -> list[list[float]]:
    """A deterministic bag-of-words embedding for InMemoryStore's index."""
    out = []
    for text in texts:
        vec = [0.0] * 64
        for word in text.lower().split():
            vec[int(hashlib.sha256(word.strip(".,!?").encode()).hexdigest(), 16) % 64] += 1.0
        out.append(vec)
    return out


@pytest.fixture(params=["InMemoryStore"] + [f"KgmemStore[{p}]" for p in _backend_pairs()])
def store(request: pytest.FixtureRequest, servers: Servers) -> BaseStore:
    """LangGraph's own InMemoryStore (with an index, so queries rank), and
    KgmemStore on each backend pair: the behaviour suite runs on all."""
    if request.param == "InMemoryStore":
        return InMemoryStore(index={"dims": 64, "embed": fake_embed})
    pair = request.param.removeprefix("KgmemStore[").removesuffix("]")
    return KgmemStore(url=servers.get(pair).url)
