"""The label mapping agrees with the server's (kgmem.NamespaceFromLabels):
the shared table in testdata/labels.json is checked by both languages."""

from __future__ import annotations

import json

import pytest

from kgmem import to_labels, to_namespace

from .conftest import REPO

TABLE = json.loads((REPO / "testdata" / "labels.json").read_text())


@pytest.mark.parametrize("case", TABLE["valid"], ids=lambda c: c["namespace"])
def test_shared_table(case: dict) -> None:
    assert to_namespace(case["labels"]) == case["namespace"]
    assert list(to_labels(case["namespace"])) == case["labels"]


@pytest.mark.parametrize("namespace", TABLE["not_labels"])
def test_not_an_encoding(namespace: str) -> None:
    with pytest.raises(ValueError):
        to_labels(namespace)


@pytest.mark.parametrize("labels", [[], [""], ["x"] * 9, ["ü" * 22]])
def test_refused_labels(labels: list[str]) -> None:
    with pytest.raises(ValueError):
        to_namespace(labels)
