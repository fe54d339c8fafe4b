#!/usr/bin/env bash
# Runs every test of kgmem against real servers: installs Neo4j (Maven Central)
# and Milvus (PyPI) when missing, starts both on loopback, runs `go vet` and
# `go test` over the whole module, and stops the servers on exit, pass or fail.
#
#   scripts/test.sh                 # everything
#   scripts/test.sh -run Search     # extra arguments go to `go test`
#   KGMEM_TEST_SERVICES=none scripts/test.sh   # no servers: integration tests skip (fail under CI=true)
#   KGMEM_FUZZTIME=0 scripts/test.sh            # skip the bounded fuzzing step (default 50000 inputs per target)
set -euo pipefail
cd "$(dirname "$0")/.."

services=(neo4j milvus)
if [[ "${KGMEM_TEST_SERVICES:-all}" == "none" ]]; then
  services=()
fi

stop_services() {
  local s
  for s in "${services[@]}"; do
    "scripts/$s.sh" stop || echo "warning: stopping $s failed" >&2
  done
}
trap stop_services EXIT
trap 'exit 130' INT TERM

# Start the servers side by side; each script installs what it lacks and waits
# for its server to answer, with a deadline.
pids=()
for s in "${services[@]}"; do
  "scripts/$s.sh" start &
  pids+=("$!")
done
for pid in "${pids[@]}"; do
  wait "$pid"
done

for s in "${services[@]}"; do
  case "$s" in
    neo4j) export KGMEM_TEST_NEO4J_URI="bolt://127.0.0.1:${KGMEM_NEO4J_BOLT_PORT:-7687}" ;;
    milvus) export KGMEM_TEST_MILVUS_ADDR="127.0.0.1:${KGMEM_MILVUS_PORT:-19530}" ;;
  esac
done

go vet ./...
go test -count=1 -timeout 40m "$@" ./...
if [[ $# -eq 0 ]]; then scripts/test-ui.sh; fi

# Fuzzing: every Fuzz* target in a *_fuzz_test.go file runs for
# KGMEM_FUZZTIME (default 50000x, a count of inputs; 0 skips) after its seed
# corpus (testdata/fuzz, already replayed by `go test` above). A crasher fails
# the run and is saved under the package's testdata/fuzz for the fix's
# regression test. The budget is a count, not a duration: on a starved machine
# Go 1.26's fuzz coordinator can fail a duration budget with a bare "context
# deadline exceeded" when it ends mid-input (go.dev/issue/75804; CI hit it);
# a count has no deadline to race.
fuzztime="${KGMEM_FUZZTIME:-50000x}"
if [[ "$fuzztime" != "0" && $# -eq 0 ]]; then
  while IFS= read -r file; do
    for target in $(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$file"); do
      echo "fuzz $(dirname "$file") $target for $fuzztime"
      go test "./$(dirname "$file")" -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime"
    done
  done < <(git ls-files --cached --others --exclude-standard '*_fuzz_test.go' | sort)
fi
