#!/usr/bin/env bash
# milvus.sh — a real Milvus 2.3.5 standalone for kgmem's integration tests,
# without Docker: the PyPI wheel "milvus" carries the Milvus binary, its
# embedded etcd and local storage.
#
#   scripts/milvus.sh install   create the venv and pip install milvus==2.3.5 (idempotent)
#   scripts/milvus.sh start     install if missing, start in the background, wait until
#                               healthy, print the gRPC address (127.0.0.1:19530) on stdout
#   scripts/milvus.sh stop      SIGINT with a deadline, then SIGKILL (idempotent)
#   scripts/milvus.sh status    exit 0 and print the address when running and healthy,
#                               1 when running but unhealthy, 3 when stopped
#   scripts/milvus.sh clean     stop, then delete the instance's directory
#
# One instance runs per gRPC port P, side by side with the others: its data,
# generated config, pid file and log live in $KGMEM_SERVICES_DIR/milvus/port-P,
# and it listens on a block of ports derived from P: P gRPC, P+1 internal
# proxy, P+2..P+8 the coordinators and nodes, P+9 and P+10 the embedded etcd
# (client, peer). Only the health/metrics port is picked by milvus-server (9091
# or the next free one) and read back from the server process.
#
#   KGMEM_MILVUS_PORT=29530 scripts/milvus.sh start   # ports 29530-29540
#
# Environment:
#   KGMEM_SERVICES_DIR           base directory (default ~/.cache/kgmem); Milvus lives in ./milvus
#   KGMEM_MILVUS_PORT            gRPC port (default 19530)
#   KGMEM_MILVUS_START_TIMEOUT   seconds to wait for health (default 180)
#   KGMEM_MILVUS_STOP_TIMEOUT    seconds to wait after SIGINT before SIGKILL (default 30)
#   KGMEM_MILVUS_KEEP_DATA=1     keep the data of the previous run (default: start empty)
#
# milvus-server silently moves a port it is not given to the next free one;
# start gives it every port of the block (a busy one then fails the start
# instead), refuses a busy block up front, and checks the gRPC port written in
# the generated config, which it deletes before starting so a config left by
# an earlier run is never read. The health port is read from the server
# process's METRICS_PORT. Milvus listens on all interfaces (the 2.3 binary
# cannot bind a single address); the address printed is loopback.
set -euo pipefail

MILVUS_VERSION=2.3.5
BASE_DIR=${KGMEM_SERVICES_DIR:-$HOME/.cache/kgmem}/milvus
VENV=$BASE_DIR/venv
PORT=${KGMEM_MILVUS_PORT:-19530}
[[ $PORT =~ ^[0-9]+$ ]] && ((PORT >= 1024 && PORT + 10 <= 65535)) ||
	{ echo "milvus.sh: KGMEM_MILVUS_PORT must be a port from 1024 to 65525 (it uses the ten above it too)" >&2; exit 2; }
# Everything of one instance is keyed by its gRPC port.
INSTANCE_DIR=$BASE_DIR/port-$PORT
DATA_DIR=$INSTANCE_DIR/data
PID_FILE=$INSTANCE_DIR/milvus.pid
LOG_FILE=$INSTANCE_DIR/milvus.log
ETCD_CONFIG=$INSTANCE_DIR/embed-etcd.yaml
# The port block: wrapper option and port, in order from P.
PORT_OPTIONS=(proxy-port proxy-internal-port root-coord-port query-coord-port query-node-port
	index-coord-port index-node-port data-coord-port data-node-port etcd-port)
ETCD_CLIENT_PORT=$((PORT + 9))
ETCD_PEER_PORT=$((PORT + 10))
START_TIMEOUT=${KGMEM_MILVUS_START_TIMEOUT:-180}
STOP_TIMEOUT=${KGMEM_MILVUS_STOP_TIMEOUT:-30}
ADDR=127.0.0.1:$PORT

say() { echo "milvus.sh: $*" >&2; }
die() { say "ERROR: $*"; exit 1; }

# log_tail prints the end of every log that can explain a failed start.
log_tail() {
	local f
	for f in "$LOG_FILE" "$DATA_DIR/logs/milvus-stderr.log" "$DATA_DIR/logs/milvus-stdout.log"; do
		[[ -s $f ]] || continue
		echo "----- last lines of $f -----" >&2
		tail -n 40 "$f" >&2
	done
}

installed() {
	[[ -x $VENV/bin/milvus-server ]] &&
		[[ $("$VENV/bin/python" -c 'import milvus; print(milvus.__version__)' 2>/dev/null) == "$MILVUS_VERSION" ]]
}

cmd_install() {
	if installed; then
		say "milvus $MILVUS_VERSION already installed in $VENV"
		return 0
	fi
	command -v python3 >/dev/null || die "python3 is required"
	mkdir -p "$BASE_DIR"
	say "installing milvus==$MILVUS_VERSION into $VENV"
	python3 -m venv "$VENV"
	"$VENV/bin/pip" install --quiet --disable-pip-version-check "milvus==$MILVUS_VERSION"
	installed || die "pip install finished but milvus $MILVUS_VERSION is not importable from $VENV"
	say "installed milvus $MILVUS_VERSION"
}

# wrapper_pid prints the pid of our milvus-server wrapper if it is alive.
wrapper_pid() {
	[[ -f $PID_FILE ]] || return 1
	local pid cmdline
	pid=$(<"$PID_FILE")
	[[ $pid =~ ^[0-9]+$ ]] || return 1
	# Guard against a recycled pid: it must still be this instance's
	# milvus-server (its data dir is keyed by the port).
	cmdline=$(tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null) || return 1
	grep -q "milvus-server" <<<"$cmdline" && grep -qxF -- "$DATA_DIR" <<<"$cmdline" || return 1
	echo "$pid"
}

# server_pid prints the pid of the Milvus binary started by the wrapper.
server_pid() {
	# Match the command name, which a zombie keeps (its cmdline is gone).
	local child comm
	while read -r child comm; do
		if [[ $comm == milvus ]]; then
			echo "$child"
			return 0
		fi
	done < <(ps -o pid=,comm= --ppid "$1" 2>/dev/null)
	return 1
}

# metrics_port prints the health/metrics port the wrapper gave the server.
metrics_port() {
	{ tr '\0' '\n' <"/proc/$1/environ" | sed -n 's/^METRICS_PORT=//p'; } 2>/dev/null || true
}

# config_proxy_port prints the gRPC port written in the generated milvus.yaml.
config_proxy_port() {
	awk '/^proxy:/ {p=1; next} /^[^ #]/ {p=0} p && /^  port:/ {print $2; exit}' \
		"$DATA_DIR/configs/milvus.yaml" 2>/dev/null || true
}

# bindable succeeds when 127.0.0.1:$1 can be bound the way milvus-server tests
# it (no SO_REUSEADDR), which a recently closed connection in TIME_WAIT prevents.
bindable() {
	"$VENV/bin/python" -c 'import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", int(sys.argv[1])))' "$1" 2>/dev/null
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

healthy() { curl -fsS --max-time 2 "http://127.0.0.1:$1/healthz" 2>/dev/null | grep -q OK; }

# check_running succeeds when our server answers health and gRPC on $PORT.
check_running() {
	local pid spid hport
	pid=$(wrapper_pid) || return 1
	spid=$(server_pid "$pid") || return 1
	hport=$(metrics_port "$spid")
	[[ -n $hport ]] && healthy "$hport" && port_open "$PORT" &&
		[[ $(config_proxy_port) == "$PORT" ]]
}

cmd_start() {
	installed || cmd_install
	if check_running; then
		say "already running at $ADDR (pid $(wrapper_pid))"
		echo "$ADDR"
		return 0
	fi
	if pid=$(wrapper_pid); then
		say "pid $pid is running but not healthy; stopping it first"
		cmd_stop
	fi
	command -v curl >/dev/null || die "curl is required for the health check"
	local p legacy
	# A Milvus of the one-instance layout (before instances were keyed by
	# port) is no instance of ours; name it so it can be stopped.
	if [[ -f $BASE_DIR/milvus.pid ]] && legacy=$(<"$BASE_DIR/milvus.pid") && [[ $legacy =~ ^[0-9]+$ ]] &&
		tr '\0' '\n' <"/proc/$legacy/cmdline" 2>/dev/null | grep -qxF -- "$BASE_DIR/data" &&
		tr '\0' '\n' <"/proc/$legacy/cmdline" 2>/dev/null | grep -qxF -- "$PORT"; then
		die "port $PORT is held by pid $legacy, a Milvus started by an earlier scripts/milvus.sh (data $BASE_DIR/data); stop it with: kill -INT $legacy"
	fi
	for ((p = PORT; p <= ETCD_PEER_PORT; p++)); do
		if port_open "$p"; then
			die "port $p is already in use by another process; a Milvus on port $PORT needs ports $PORT-$ETCD_PEER_PORT (set KGMEM_MILVUS_PORT)"
		fi
	done
	# Connections closed by a previous run leave a port in TIME_WAIT for up to
	# a minute; milvus-server would then refuse it.
	local deadline=$((SECONDS + 90))
	for ((p = PORT; p <= ETCD_PEER_PORT; p++)); do
		until bindable "$p"; do
			((SECONDS < deadline)) || die "port $p did not become bindable within 90s"
			sleep 1
		done
	done
	if [[ ${KGMEM_MILVUS_KEEP_DATA:-} != 1 ]]; then
		# Test data is throw-away, and etcd sessions left by an unclean stop
		# make the next server wait for them to expire ("node not match").
		rm -rf "$DATA_DIR/data" "$DATA_DIR/logs"
	fi
	# milvus-server writes a fresh config on every start; one left by an
	# earlier run must not be read as this run's.
	rm -f "$DATA_DIR/configs/milvus.yaml"
	mkdir -p "$DATA_DIR"
	# The embedded etcd takes its listen addresses from this file (etcd's
	# defaults, 2379 and 2380, would clash with any other Milvus).
	cat >"$ETCD_CONFIG" <<-EOF
		listen-client-urls: http://127.0.0.1:$ETCD_CLIENT_PORT
		advertise-client-urls: http://127.0.0.1:$ETCD_CLIENT_PORT
		listen-peer-urls: http://127.0.0.1:$ETCD_PEER_PORT
		initial-advertise-peer-urls: http://127.0.0.1:$ETCD_PEER_PORT
		initial-cluster: default=http://127.0.0.1:$ETCD_PEER_PORT
	EOF
	local -a ports=()
	local i
	for i in "${!PORT_OPTIONS[@]}"; do
		ports+=("--${PORT_OPTIONS[$i]}" "$((PORT + i))")
	done
	say "starting milvus $MILVUS_VERSION on ports $PORT-$ETCD_PEER_PORT (data $DATA_DIR, log $LOG_FILE)"
	# Growing (unsealed) segments are searched exactly rather than through
	# Milvus 2.3's interim IVF index (nprobe 16 of 128), which missed nearly
	# half of a narrow filter's top 10 (docs/milvus.md, "Recall of unsealed rows").
	ETCD_CONFIG_PATH=$ETCD_CONFIG setsid "$VENV/bin/milvus-server" --data "$DATA_DIR" "${ports[@]}" \
		--extra-config queryNode.segcore.interimIndex.enableIndex=false \
		>"$LOG_FILE" 2>&1 </dev/null &
	local pid=$! spid="" hport="" cport="" started=$SECONDS
	echo "$pid" >"$PID_FILE"
	deadline=$((SECONDS + START_TIMEOUT))
	while ((SECONDS < deadline)); do
		if ! alive "$pid"; then
			log_tail
			rm -f "$PID_FILE"
			die "milvus-server exited during start-up"
		fi
		cport=$(config_proxy_port)
		if [[ -n $cport && $cport != "$PORT" ]]; then
			log_tail
			cmd_stop
			die "milvus-server moved gRPC to port $cport instead of $PORT (port taken during start-up)"
		fi
		[[ -n $spid ]] || spid=$(server_pid "$pid") || true
		if [[ -n $spid ]] && ! alive "$spid"; then
			# The wrapper never notices its server dying; we do.
			log_tail
			cmd_stop
			die "the milvus server process exited during start-up (a port of $PORT-$ETCD_PEER_PORT taken meanwhile?)"
		fi
		[[ -z $spid || -n $hport ]] || hport=$(metrics_port "$spid")
		if [[ -n $hport ]] && healthy "$hport" && port_open "$PORT"; then
			say "ready at $ADDR after $((SECONDS - started))s (pid $pid, health http://127.0.0.1:$hport/healthz)"
			echo "$ADDR"
			return 0
		fi
		sleep 0.5
	done
	log_tail
	cmd_stop
	die "milvus not healthy within ${START_TIMEOUT}s"
}

# alive succeeds while pid runs; a zombie (exited, not yet reaped by the
# wrapper, which never polls its child) counts as gone.
alive() {
	local state
	state=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
	[[ $state != Z* ]]
}

# wait_gone polls until pid exits or the deadline (in SECONDS) passes.
wait_gone() {
	local pid=$1 deadline=$2
	while alive "$pid"; do
		((SECONDS < deadline)) || return 1
		sleep 0.2
	done
}

cmd_stop() {
	local pid spid deadline
	if ! pid=$(wrapper_pid); then
		rm -f "$PID_FILE"
		say "not running"
		return 0
	fi
	deadline=$((SECONDS + STOP_TIMEOUT))
	# SIGINT the server itself first: the wrapper's own handler would SIGKILL it
	# after one second, too soon for a clean shutdown.
	if spid=$(server_pid "$pid"); then
		kill -INT "$spid" 2>/dev/null || true
		wait_gone "$spid" "$deadline" || say "server pid $spid ignored SIGINT for ${STOP_TIMEOUT}s"
	fi
	kill -INT "$pid" 2>/dev/null || true
	if ! wait_gone "$pid" "$deadline"; then
		say "sending SIGKILL to process group $pid"
		kill -KILL -- "-$pid" 2>/dev/null || true
		wait_gone "$pid" $((SECONDS + 5)) || die "pid $pid survived SIGKILL"
	fi
	rm -f "$PID_FILE"
	say "stopped"
}

cmd_status() {
	if check_running; then
		say "running at $ADDR (pid $(wrapper_pid))"
		echo "$ADDR"
		return 0
	fi
	if pid=$(wrapper_pid); then
		say "pid $pid is running but not healthy"
		return 1
	fi
	say "not running"
	return 3
}

cmd_clean() {
	cmd_stop
	rm -rf "$INSTANCE_DIR"
	say "removed $INSTANCE_DIR"
}

case ${1:-} in
install) cmd_install ;;
start) cmd_start ;;
stop) cmd_stop ;;
status) cmd_status ;;
clean) cmd_clean ;;
*)
	echo "usage: $0 install|start|stop|status|clean" >&2
	exit 2
	;;
esac
