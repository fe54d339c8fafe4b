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
# for its server to answer, with a deadline. Meanwhile the static embedder's
# model (the default embedder of a new data directory) is built once and
# cached; the tests that check it against its reference read
# KGMEM_STATIC_MODEL.
pids=()
for s in "${services[@]}"; do
  "scripts/$s.sh" start &
  pids+=("$!")
done
scripts/embedder.sh install >/dev/null &
pids+=("$!")
for pid in "${pids[@]}"; do
  wait "$pid"
done
export KGMEM_STATIC_MODEL="${KGMEM_STATIC_MODEL:-$(scripts/embedder.sh path)}"

for s in "${services[@]}"; do
  case "$s" in
    neo4j) export KGMEM_TEST_NEO4J_URI="bolt://127.0.0.1:${KGMEM_NEO4J_BOLT_PORT:-7687}" ;;
    milvus) export KGMEM_TEST_MILVUS_ADDR="127.0.0.1:${KGMEM_MILVUS_PORT:-19530}" ;;
  esac
done

go vet ./...

# The side suites (scripts/test-*.sh: the browser, and the suites that drive
# kgmem from real clients) run next to `go test`, each with its output in a
# log printed when it ends: most of their time is spent installing, starting
# servers and waiting on them, so the two cores stay busy and the whole run
# is shorter than running them in turn. Each script installs what it lacks
# and stops what it starts. With arguments (a `go test` filter), only
# `go test` runs.
side=()
if [[ $# -eq 0 ]]; then
  side=(
    scripts/test-ui.sh
    scripts/test-mcp.sh
    scripts/test-contract.sh
    scripts/test-llm.sh
    scripts/test-python.sh
    scripts/test-deploy.sh
  )
fi
side_logs="$(mktemp -d)"
side_pids=()
for suite in "${side[@]}"; do
  "$suite" >"$side_logs/$(basename "$suite" .sh).log" 2>&1 &
  side_pids+=("$!")
done
stop_side() {
  local pid
  for pid in "${side_pids[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  wait 2>/dev/null || true
  rm -rf "$side_logs"
  stop_services
}
trap stop_side EXIT

failed=()
go test -count=1 -timeout 40m "$@" ./... || failed+=("go test")
for i in "${!side[@]}"; do
  log="$side_logs/$(basename "${side[$i]}" .sh).log"
  if wait "${side_pids[$i]}"; then
    echo "== ${side[$i]}: ok"
  else
    failed+=("${side[$i]}")
    echo "== ${side[$i]}: FAILED"
  fi
  cat "$log"
done
side_pids=()
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "test.sh: failed: ${failed[*]}" >&2
  exit 1
fi

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
