#!/bin/bash
# fidelity-sysbench.sh - our sysbench_cpu workload against `sysbench cpu`
# (Debian package sysbench) on this host, alternated in one run.
#
# usage: bench/fidelity-sysbench.sh [ROUNDS] [THREADS:SECONDS:MAX_PRIME...]
#        (default: 3 rounds of 1:4:10000 2:4:10000)
#
# Compares the medians of events/s and of the event latency's average and
# 95th percentile (ms), same threads, time and --cpu-max-prime.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib-fidelity.sh

fid_args 3 1:4:10000 2:4:10000 -- "$@"

sb=${SYSBENCH:-/usr/bin/sysbench}
fid_init fidelity-sysbench
fid_need "$sb" "Debian package sysbench"

# ours THREADS SECONDS MAX_PRIME
ours() {
	fid_ours sysbench_cpu threads="$1" runtime="$2" max_prime="$3" |
		awk '$1 == "events_s" || $1 == "latency_p95" || $1 == "latency_avg"'
}

#     events per second:  1234.56 ... Latency (ms): avg: 0.81 ... 95th percentile: 0.83
theirs() {
	"$sb" cpu --threads="$1" --time="$2" --cpu-max-prime="$3" run 2>&1 |
		awk '/events per second:/ { print "events_s", $NF }
		     /^ *avg:/ { print "latency_avg", $NF }
		     /95th percentile:/ { print "latency_p95", $NF }'
}

for c in "${fid_configs[@]}"; do
	IFS=: read -r threads secs prime <<<"$c"
	fid_rounds "$fid_n_rounds" "threads$threads-t$secs-p$prime" ours theirs "$threads" "$secs" "$prime"
	fid_row "threads$threads-t$secs-p$prime" events_s events_s
	fid_row "threads$threads-t$secs-p$prime" latency_avg latency_avg
	fid_row "threads$threads-t$secs-p$prime" latency_p95 latency_p95
done
fid_finish
