"""Runs LangGraph's vendored store suites on KgmemStore, once per backend
pair, and marks the tests whose difference from LangGraph's stores is
documented (marks.py, README.md)."""

from __future__ import annotations

import pytest

from tests.conftest import Server
from tests.langgraph_suites.embed_test_utils import CharacterEmbeddings
from tests.langgraph_suites import kgmem_fixture
from tests.langgraph_suites.marks import mark_for


@pytest.fixture(autouse=True)
def _kgmem_server(server: Server) -> None:
    """Every suite test runs against each backend pair's server, wiped."""
    kgmem_fixture.use_server(server.url)


@pytest.fixture
def fake_embeddings() -> CharacterEmbeddings:
    """The Postgres suites' fixture, from their conftest.py."""
    return CharacterEmbeddings(dims=500)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        mark = mark_for(item.nodeid)
        if mark is not None:
            item.add_marker(mark)
