#!/bin/bash
# fidelity-tbench.sh - our tbench workload against dbench's tbench (client
# tbench, server tbench_srv, Debian package dbench) on this host, alternated.
#
# usage: bench/fidelity-tbench.sh [ROUNDS] [CLIENTS:SECONDS...]
#        (default: 3 rounds of 1:5 2:5 4:5)
#
# Compares the medians of MB/s.  tbench counts only the data of its ReadX
# and WriteX operations and measures after a warmup of a fifth of -t; we
# give ours the same warmup and the rest as runtime.  The request mix is
# ours, not client.txt: see docs/workloads.md for what that leaves.
# TBENCH_PORT (default 7003, tbench's fixed port) must be free.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib-fidelity.sh

fid_args 3 1:5 2:5 4:5 -- "$@"

tb=${TBENCH:-/usr/bin/tbench}
srv=${TBENCH_SRV:-/usr/bin/tbench_srv}
fid_init fidelity-tbench
fid_need "$tb" "Debian package dbench"
fid_need "$srv" "Debian package dbench"

"$srv" >"$fid_tmp/srv.log" 2>&1 &
srv_pid=$!
trap 'kill "$srv_pid" 2>/dev/null; rm -rf "$fid_tmp"' EXIT
sleep 0.5
if ! kill -0 "$srv_pid" 2>/dev/null; then
	echo "fidelity-tbench: tbench_srv did not start: $(cat "$fid_tmp/srv.log")" >&2
	exit 1
fi

# ours CLIENTS SECONDS
ours() {
	local warm=$(($2 / 5))
	fid_ours tbench clients="$1" runtime=$(($2 - warm)) warmup="$warm" | awk '$1 == "mb_s"'
}

# "Throughput 751.495 MB/sec  2 clients  2 procs  max_latency=10.028 ms"
theirs() {
	(cd "$fid_tmp" && "$tb" -t "$2" "$1" 127.0.0.1) 2>&1 |
		awk '$1 == "Throughput" { print "mb_s", $2 }'
}

for c in "${fid_configs[@]}"; do
	IFS=: read -r clients secs <<<"$c"
	fid_rounds "$fid_n_rounds" "clients$clients-t$secs" ours theirs "$clients" "$secs"
	fid_row "clients$clients-t$secs" mb_s mb_s
done
fid_finish
