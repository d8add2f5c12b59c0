#!/bin/bash
# fidelity-iperf.sh - our iperf workload against iperf3 (Debian package
# iperf3) over loopback on this host, alternated in one run.
#
# usage: bench/fidelity-iperf.sh [ROUNDS] [STREAMS:SECONDS:BUFFER_K...]
#        (default: 3 rounds of 1:4:128 2:4:128)
#
# Compares the medians of the receiver's Gbit/s: one iperf3 client and one
# one-off server process (-s -1), -P streams, -l buffer, no omitted
# seconds; ours with the same streams, buffer and runtime, no warmup, and
# its tasks shaped as this iperf3's: one process per side up to 3.15, a
# process per stream end from 3.16 (IPERF_TASKS=stream|side overrides).
# IPERF_PORT (default 5201) must be free.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib-fidelity.sh

fid_args 3 1:4:128 2:4:128 -- "$@"

ip3=${IPERF3:-/usr/bin/iperf3}
port=${IPERF_PORT:-5201}
fid_init fidelity-iperf
fid_need "$ip3" "Debian package iperf3"
if [ -z "${IPERF_TASKS:-}" ]; then
	# "iperf 3.12 (cJSON 1.7.15)": threads per stream came with 3.16
	IPERF_TASKS=$("$ip3" --version | awk 'NR == 1 { split($2, v, "."); print (v[1] > 3 || (v[1] == 3 && v[2] + 0 >= 16)) ? "stream" : "side" }')
fi
echo "fidelity-iperf: $("$ip3" --version | head -1), ours with tasks=$IPERF_TASKS" >&2

# ours STREAMS SECONDS BUFFER_K
ours() {
	fid_ours iperf streams="$1" runtime="$2" warmup=0 buffer="$3"K tasks="$IPERF_TASKS" |
		awk '$1 == "gbit_s"'
}

# the receiver's line of the summary: "[SUM] 0.00-4.00 sec 10.1 GBytes 21.7 Gbits/sec receiver"
theirs() {
	local spid
	"$ip3" -s -1 -p "$port" >/dev/null 2>&1 &
	spid=$!
	sleep 0.3
	"$ip3" -c 127.0.0.1 -p "$port" -t "$2" -P "$1" -l "$3"K -f g 2>&1 |
		awk '/receiver/ { v = $(NF - 2) } END { if (v != "") print "gbit_s", v }'
	wait "$spid" || true
}

for c in "${fid_configs[@]}"; do
	IFS=: read -r streams secs buf <<<"$c"
	fid_rounds "$fid_n_rounds" "streams$streams-t$secs-l${buf}K" ours theirs "$streams" "$secs" "$buf"
	fid_row "streams$streams-t$secs-l${buf}K" gbit_s gbit_s
done
fid_finish
