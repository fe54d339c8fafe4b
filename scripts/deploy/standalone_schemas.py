"""Writes standalone JSON schemas for the kinds of Kubernetes manifests.

kubernetes-validate (PyPI) ships Kubernetes' JSON schemas with every
definition in one shared _definitions.json, referenced by an absolute path
that kubeconform cannot resolve offline. For each kind the manifests use,
this writes <kind>-<group>-<version>.json (kubeconform's file naming) with
the definitions inlined and the references made local.

    python standalone_schemas.py SCHEMA_DIR OUT_DIR MANIFEST...
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import yaml

SHARED = "/api/_definitions.json#/$defs/"


def localise(node: Any) -> Any:
    """Returns node with every shared-definition reference made local."""
    if isinstance(node, dict):
        return {
            k: (v.replace(SHARED, "#/$defs/") if k == "$ref" and isinstance(v, str) else localise(v))
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [localise(v) for v in node]
    return node


def schema_name(api_version: str, kind: str) -> str:
    """kubeconform's file name for a kind: deployment-apps-v1.json, service-v1.json."""
    group, _, version = api_version.rpartition("/")
    parts = [kind.lower()] + ([group.split(".")[0]] if group else []) + [version]
    return "-".join(parts) + ".json"


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    src, out = Path(argv[0]), Path(argv[1])
    names = set()
    for manifest in argv[2:]:
        for doc in yaml.safe_load_all(Path(manifest).read_text()):
            if doc:
                names.add(schema_name(doc["apiVersion"], doc["kind"]))
    defs = localise(json.loads((src / "_definitions.json").read_text())["$defs"])
    out.mkdir(parents=True, exist_ok=True)
    for name in sorted(names):
        path = src / name
        if not path.exists():
            print(f"no schema {name} in {src}", file=sys.stderr)
            return 1
        schema = localise(json.loads(path.read_text()))
        schema["$defs"] = defs
        (out / name).write_text(json.dumps(schema))
        print(f"schema {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
