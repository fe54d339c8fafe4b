#!/usr/bin/env bash
# The Python package (python/): its pytest suite against real kgmem servers
# that the suite's fixtures build from this checkout and start on loopback —
# over SQLite + HNSW, and over Neo4j + Milvus when KGMEM_TEST_NEO4J_URI and
# KGMEM_TEST_MILVUS_ADDR name running servers (scripts/test.sh starts them;
# under CI their absence fails the run). Creates the venv
# ~/.cache/kgmem/venv-python with the package and its pinned test extras
# (LangGraph, LangMem, pytest) when missing or when python/pyproject.toml
# changed. Under CI a missing Python fails the run.
#
#   scripts/test-python.sh [pytest args]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/kgmem-server.sh
kgmem_require_python test-python

venv="${HOME}/.cache/kgmem/venv-python"
stamp="$venv/.pyproject.sha256"
want="$(sha256sum python/pyproject.toml | cut -d' ' -f1)"
if [[ ! -x "$venv/bin/python" || "$(cat "$stamp" 2>/dev/null)" != "$want" ]]; then
  echo "installing python/[test] into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -e "./python[test]"
  echo "$want" >"$stamp"
fi
# The package is installed editable: a checkout at another path re-points it.
"$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps -e ./python

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
kgmem_build "$tmp"
cd python
# PYTHONPATH too: the venv is shared by every checkout on the machine, and
# another one's run may re-point the editable install while this one runs.
PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}" KGMEM_BIN="$KGMEM_BIN" "$venv/bin/python" -m pytest -q -p no:cacheprovider -W ignore::DeprecationWarning "$@"
