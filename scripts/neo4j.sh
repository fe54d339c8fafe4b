#!/usr/bin/env bash
# scripts/neo4j.sh — a local Neo4j 5.26 Community server without Docker.
#
#   scripts/neo4j.sh install   resolve the server + Browser jars from Maven Central (idempotent)
#   scripts/neo4j.sh start     install if missing, start in the background, wait for Bolt and HTTP
#   scripts/neo4j.sh stop      SIGTERM with a deadline, then SIGKILL (idempotent)
#   scripts/neo4j.sh status    print state; exit 0 when serving, 3 when stopped
#
# One instance runs per Bolt port, side by side with the others: its home
# (data, logs), pid file and log live in $KGMEM_SERVICES_DIR/neo4j/bolt-<port>,
# and start, status and stop act on that instance only. Start refuses a port
# (Bolt or HTTP) held by anything else. Status and stop read the HTTP port from
# the running instance, so KGMEM_NEO4J_BOLT_PORT alone names it.
#
#   KGMEM_NEO4J_BOLT_PORT=17687 KGMEM_NEO4J_HTTP_PORT=17474 scripts/neo4j.sh start
#
# Environment:
#   KGMEM_SERVICES_DIR       root for local services      (default $HOME/.cache/kgmem)
#   KGMEM_NEO4J_BOLT_PORT    Bolt port on 127.0.0.1        (default 7687)
#   KGMEM_NEO4J_HTTP_PORT    HTTP/Browser port on 127.0.0.1 (default 7474)
#   KGMEM_NEO4J_HEAP         JVM heap, -Xms and -Xmx       (default 1g)
#   KGMEM_NEO4J_PAGECACHE    page cache size               (default 512m)
#   KGMEM_NEO4J_START_TIMEOUT seconds to wait for readiness (default 180)
#   KGMEM_NEO4J_STOP_TIMEOUT  seconds to wait after SIGTERM (default 60)
#
# The server is org.neo4j.server.CommunityEntryPoint run straight from a Maven
# classpath (scripts/neo4j/pom.xml), with authentication disabled and both
# connectors bound to the loopback interface only. Browser is served at
# http://127.0.0.1:${KGMEM_NEO4J_HTTP_PORT}/browser/ from the neo4j-browser jar.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
POM="$SCRIPT_DIR/neo4j/pom.xml"

BASE="${KGMEM_SERVICES_DIR:-$HOME/.cache/kgmem}/neo4j"
CP_FILE="$BASE/classpath.txt"
POM_STAMP="$BASE/pom.sha256"

BOLT_PORT="${KGMEM_NEO4J_BOLT_PORT:-7687}"
HTTP_PORT="${KGMEM_NEO4J_HTTP_PORT:-7474}"
[[ "$BOLT_PORT" =~ ^[0-9]+$ && "$HTTP_PORT" =~ ^[0-9]+$ ]] ||
	{ echo "neo4j.sh: KGMEM_NEO4J_BOLT_PORT and KGMEM_NEO4J_HTTP_PORT must be port numbers" >&2; exit 2; }
# Everything of one instance is keyed by its Bolt port.
INSTANCE_DIR="$BASE/bolt-$BOLT_PORT"
HOME_DIR="$INSTANCE_DIR/home"
PID_FILE="$INSTANCE_DIR/neo4j.pid"
LOG_FILE="$INSTANCE_DIR/neo4j.log"
HEAP="${KGMEM_NEO4J_HEAP:-1g}"
PAGECACHE="${KGMEM_NEO4J_PAGECACHE:-512m}"
START_TIMEOUT="${KGMEM_NEO4J_START_TIMEOUT:-180}"
STOP_TIMEOUT="${KGMEM_NEO4J_STOP_TIMEOUT:-60}"

log() { printf 'neo4j.sh: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

# pom_hash identifies the pinned versions, so a version bump in the pom reinstalls.
pom_hash() { sha256sum "$POM" | cut -d' ' -f1; }

installed() {
	[[ -s "$CP_FILE" && -f "$POM_STAMP" ]] || return 1
	[[ "$(cat "$POM_STAMP")" == "$(pom_hash)" ]] || return 1
	local jar
	while IFS= read -r jar; do
		[[ -f "$jar" ]] || return 1
	done < <(tr ':' '\n' <"$CP_FILE")
}

cmd_install() {
	if installed; then
		log "already installed ($BASE)"
		return 0
	fi
	command -v java >/dev/null || die "java (17 or 21) is required: apt-get install -y openjdk-17-jre-headless"
	command -v mvn >/dev/null || die "maven is required: apt-get install -y maven"
	mkdir -p "$BASE"
	log "resolving Neo4j Community + Browser from Maven Central (first run downloads ~150 MB)"
	local tmp="$CP_FILE.tmp.$$" mvnlog="$BASE/install.log"
	if ! mvn -B -Dstyle.color=never -f "$POM" dependency:build-classpath \
		-Dmdep.outputFile="$tmp" -Dmdep.includeScope=runtime >"$mvnlog" 2>&1; then
		rm -f "$tmp"
		tail -n 40 "$mvnlog" >&2 || true
		die "maven could not resolve the classpath (full log: $mvnlog)"
	fi
	[[ -s "$tmp" ]] || { rm -f "$tmp"; die "maven wrote an empty classpath"; }
	mv "$tmp" "$CP_FILE"
	pom_hash >"$POM_STAMP"
	log "installed: $(tr ':' '\n' <"$CP_FILE" | wc -l) jars, classpath in $CP_FILE"
}

# ours tells whether pid is this instance's server: started from its home
# dir (which is keyed by the Bolt port) and listening on its Bolt port.
ours() {
	local cmdline
	cmdline=$(tr '\0' '\n' <"/proc/$1/cmdline" 2>/dev/null) || return 1
	grep -qxF -- "--home-dir=$HOME_DIR" <<<"$cmdline" &&
		grep -qxF -- "server.bolt.listen_address=127.0.0.1:$BOLT_PORT" <<<"$cmdline"
}

# pid_alive tells whether the pid file names a live process of ours.
pid_alive() {
	[[ -f "$PID_FILE" ]] || return 1
	local pid
	pid=$(cat "$PID_FILE")
	[[ "$pid" =~ ^[0-9]+$ ]] || return 1
	kill -0 "$pid" 2>/dev/null || return 1
	# Guard against pid reuse: the process must be our server.
	ours "$pid"
}

# use_running_http_port sets HTTP_PORT to the one the instance in the pid
# file was started with, so status and stop need only the Bolt port.
use_running_http_port() {
	local p
	p=$(tr '\0' '\n' <"/proc/$(cat "$PID_FILE")/cmdline" 2>/dev/null |
		sed -n 's/^server\.http\.listen_address=127\.0\.0\.1://p' | head -n1) || true
	[[ -n "$p" ]] && HTTP_PORT=$p
	return 0
}

# port_owner prints the pid listening on 127.0.0.1:$1, if any.
port_owner() {
	ss -Htlnp "sport = :$1" 2>/dev/null | grep -o 'pid=[0-9]*' | head -n1 | cut -d= -f2 || true
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# db_ready runs RETURN 1 over the HTTP transaction API: true once the default
# database is online (Bolt and HTTP are served by the same process).
db_ready() {
	port_open "$BOLT_PORT" || return 1
	curl -fsS --max-time 5 -H 'Content-Type: application/json' \
		-d '{"statements":[{"statement":"RETURN 1 AS ok"}]}' \
		"http://127.0.0.1:$HTTP_PORT/db/neo4j/tx/commit" 2>/dev/null | grep -q '"errors":\[\]'
}

wait_ready() {
	local pid=$1 deadline=$((SECONDS + START_TIMEOUT))
	while ((SECONDS < deadline)); do
		if ! kill -0 "$pid" 2>/dev/null; then
			log "server process $pid exited during start-up; last log lines:"
			tail -n 60 "$LOG_FILE" >&2 || true
			rm -f "$PID_FILE"
			exit 1
		fi
		if db_ready; then
			return 0
		fi
		sleep 0.5 # poll interval, bounded by the deadline above
	done
	log "not ready after ${START_TIMEOUT}s; last log lines:"
	tail -n 60 "$LOG_FILE" >&2 || true
	exit 1
}

# migrate_legacy_home moves the database of the single-instance layout
# ($BASE/home, used before instances were keyed by port) into the default
# port's instance, once, when that instance has no database yet and no
# server runs from the old home.
migrate_legacy_home() {
	local legacy="$BASE/home"
	[[ "$BOLT_PORT" == 7687 && -d "$legacy/data/databases" && ! -d "$HOME_DIR/data/databases" ]] || return 0
	if pgrep -f -- "--home-dir=$legacy( |\$)" >/dev/null 2>&1; then
		log "a server still runs from $legacy; starting this instance with an empty database"
		return 0
	fi
	log "moving the database of $legacy into $HOME_DIR"
	rm -rf "$HOME_DIR/data"
	mv "$legacy/data" "$HOME_DIR/data"
}

print_uri() { echo "bolt://127.0.0.1:$BOLT_PORT"; }

cmd_start() {
	if pid_alive; then
		local want=$HTTP_PORT
		use_running_http_port
		if [[ -n "${KGMEM_NEO4J_HTTP_PORT:-}" && "$want" != "$HTTP_PORT" ]]; then
			die "the instance on bolt $BOLT_PORT (pid $(cat "$PID_FILE")) serves HTTP on $HTTP_PORT, not $want; stop it first"
		fi
		log "already running on bolt $BOLT_PORT (pid $(cat "$PID_FILE")), reusing it"
		wait_ready "$(cat "$PID_FILE")"
		print_uri
		return 0
	fi
	rm -f "$PID_FILE"
	# A port served by a process started from this home dir (pid file lost) is
	# adopted; anything else on our ports is a conflict.
	local port owner
	for port in "$BOLT_PORT" "$HTTP_PORT"; do
		owner=$(port_owner "$port")
		if [[ -n "$owner" ]]; then
			if ours "$owner"; then
				mkdir -p "$INSTANCE_DIR"
				echo "$owner" >"$PID_FILE"
				use_running_http_port
				log "port $port is served by our own instance (pid $owner), reusing it"
				wait_ready "$owner"
				print_uri
				return 0
			fi
			if tr '\0' '\n' <"/proc/$owner/cmdline" 2>/dev/null | grep -qxF -- "--home-dir=$BASE/home"; then
				die "port $port is held by pid $owner, a Neo4j started by an earlier scripts/neo4j.sh (one instance, home $BASE/home); stop it with: kill -TERM $owner"
			fi
			die "port $port is already in use by pid $owner, which is not this Neo4j (bolt $BOLT_PORT); set KGMEM_NEO4J_BOLT_PORT/KGMEM_NEO4J_HTTP_PORT"
		elif port_open "$port"; then
			die "port $port is already in use by another process; set KGMEM_NEO4J_BOLT_PORT/KGMEM_NEO4J_HTTP_PORT"
		fi
	done

	cmd_install
	mkdir -p "$HOME_DIR"/{conf,data,logs,run,import,plugins}
	migrate_legacy_home
	# An empty neo4j.conf: every setting is passed with -c below so the
	# command line in the pid's /proc entry is the whole configuration.
	: >"$HOME_DIR/conf/neo4j.conf"

	local -a jvm=(
		"-Xms$HEAP" "-Xmx$HEAP"
		# From the stock neo4j.conf of 5.26.
		-XX:+UseG1GC -XX:-OmitStackTraceInFastThrow -XX:+UnlockExperimentalVMOptions
		-XX:+TrustFinalNonStaticFields -XX:+DisableExplicitGC
		-Djdk.nio.maxCachedBufferSize=1024 -Dio.netty.tryReflectionSetAccessible=true
		-Djdk.tls.ephemeralDHKeySize=2048 -Djdk.tls.rejectClientInitiatedRenegotiation=true
		-XX:FlightRecorderOptions=stackdepth=256 -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints
		--add-opens=java.base/java.nio=ALL-UNNAMED
		--add-opens=java.base/java.io=ALL-UNNAMED
		--add-opens=java.base/sun.nio.ch=ALL-UNNAMED
		--add-opens=java.base/java.lang=ALL-UNNAMED
		--enable-native-access=ALL-UNNAMED
		-Dlog4j2.disable.jmx=true -Dlog4j.layout.jsonTemplate.maxStringLength=32768
	)
	local -a conf=(
		-c dbms.security.auth_enabled=false
		-c "server.default_listen_address=127.0.0.1"
		-c "server.bolt.listen_address=127.0.0.1:$BOLT_PORT"
		-c "server.bolt.advertised_address=127.0.0.1:$BOLT_PORT"
		-c "server.http.listen_address=127.0.0.1:$HTTP_PORT"
		-c "server.http.advertised_address=127.0.0.1:$HTTP_PORT"
		-c server.https.enabled=false
		-c "server.directories.data=$HOME_DIR/data"
		-c "server.directories.logs=$HOME_DIR/logs"
		-c "server.directories.run=$HOME_DIR/run"
		-c "server.directories.import=$HOME_DIR/import"
		-c "server.directories.plugins=$HOME_DIR/plugins"
		-c "server.memory.pagecache.size=$PAGECACHE"
		-c dbms.usage_report.enabled=false
	)

	log "starting Neo4j (bolt 127.0.0.1:$BOLT_PORT, http 127.0.0.1:$HTTP_PORT, log $LOG_FILE)"
	: >"$LOG_FILE"
	# setsid: the server outlives this shell and gets its own process group.
	setsid java "${jvm[@]}" -cp "$(cat "$CP_FILE")" org.neo4j.server.CommunityEntryPoint \
		"--home-dir=$HOME_DIR" "--config-dir=$HOME_DIR/conf" --console-mode "${conf[@]}" \
		>>"$LOG_FILE" 2>&1 </dev/null &
	local pid=$!
	echo "$pid" >"$PID_FILE"
	wait_ready "$pid"
	log "ready (pid $pid), Browser at http://127.0.0.1:$HTTP_PORT/browser/"
	print_uri
}

cmd_stop() {
	if ! pid_alive; then
		rm -f "$PID_FILE"
		log "not running"
		return 0
	fi
	local pid deadline
	pid=$(cat "$PID_FILE")
	log "stopping the instance on bolt $BOLT_PORT, pid $pid (SIGTERM, up to ${STOP_TIMEOUT}s)"
	kill -TERM "$pid" 2>/dev/null || true
	deadline=$((SECONDS + STOP_TIMEOUT))
	while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do
		sleep 0.2 # poll interval, bounded by the deadline above
	done
	if kill -0 "$pid" 2>/dev/null; then
		log "still running after ${STOP_TIMEOUT}s, sending SIGKILL"
		kill -KILL "$pid" 2>/dev/null || true
		while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
	fi
	rm -f "$PID_FILE"
	log "stopped"
}

cmd_status() {
	if pid_alive; then
		use_running_http_port
		if db_ready; then
			echo "running pid=$(cat "$PID_FILE") $(print_uri) http://127.0.0.1:$HTTP_PORT/browser/"
			return 0
		fi
		echo "starting pid=$(cat "$PID_FILE") (not ready yet)"
		return 3
	fi
	echo "stopped (bolt $BOLT_PORT)"
	return 3
}

case "${1:-}" in
install) cmd_install ;;
start) cmd_start ;;
stop) cmd_stop ;;
status) cmd_status ;;
*)
	echo "usage: $0 {install|start|stop|status}" >&2
	exit 2
	;;
esac
