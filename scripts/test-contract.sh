#!/usr/bin/env bash
# The contract test: schemathesis (PyPI, pinned in tests/contract) generates
# requests from api/openapi.json — valid ones, invalid ones, and stateful
# sequences along the document's links — and checks every answer of a real
# server against the document with all its checks: no 5xx, documented
# statuses, content types and bodies, valid data accepted, invalid data
# rejected. It runs with the admin key and without a key, each on a fresh
# server. Any failure fails the run. Configuration: tests/contract/schemathesis.toml.
#
#   scripts/test-contract.sh                 # KGMEM_CONTRACT_EXAMPLES (default 100) per operation
#   KGMEM_CONTRACT_SEED=7 scripts/test-contract.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/kgmem-server.sh
kgmem_require_python test-contract

venv="${HOME}/.cache/kgmem/venv-schemathesis"
kgmem_venv "$venv" tests/contract/requirements.txt

tmp="$(mktemp -d)"
trap 'kgmem_stop; rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

kgmem_build "$tmp"
admin="kgm_admin_$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')"
examples="${KGMEM_CONTRACT_EXAMPLES:-100}"
seed="${KGMEM_CONTRACT_SEED:-1}"

run() { # run NAME [schemathesis args]
  local name="$1"
  shift
  echo "test-contract: $name"
  (cd "$tmp" && "$venv/bin/schemathesis" --config-file "$OLDPWD/tests/contract/schemathesis.toml" \
    run "$KGMEM_URL/openapi.json" --checks all --seed "$seed" --max-examples "$examples" --no-color "$@")
}

KGMEM_ADMIN_KEY="$admin" KGMEM_LOG_LEVEL=warn kgmem_start "$tmp/with-key" --rate-limit 0
run "with the admin key" -H "Authorization: Bearer $admin"
kgmem_stop

KGMEM_ADMIN_KEY="$admin" KGMEM_LOG_LEVEL=warn kgmem_start "$tmp/without-key" --rate-limit 0
run "without a key (every route but health and the document answers 401)"
