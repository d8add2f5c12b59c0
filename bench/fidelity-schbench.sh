#!/bin/bash
# fidelity-schbench.sh - our schbench workload against the real schbench
# (masoncl/schbench, built by you) on this host, alternated in one run.
#
# usage: SCHBENCH=/path/to/schbench bench/fidelity-schbench.sh [ROUNDS] [M:T:R:W:F:N:S...]
#        (default: 3 rounds of 1:2:4:1:256:5:100, the issue's
#         -m 1 -t 2 -r 4 -w 1 -F 256 -n 5 -s 100, and 1:4:4:1:256:5:100)
#
# Compares the medians of requests/s, wakeup p99 and request p99.  schbench
# ignores -w when -r is under 30 s and otherwise counts the warmup inside
# -r; ours measures `runtime` seconds after `warmup`, so we pass it what
# the real tool actually does.  Skips (77) when SCHBENCH is not executable.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib-fidelity.sh

fid_args 3 1:2:4:1:256:5:100 1:4:4:1:256:5:100 -- "$@"

ref=${SCHBENCH:-$(command -v schbench || echo schbench)}
fid_init fidelity-schbench
fid_need "$ref" "build masoncl/schbench and set SCHBENCH=path"

# ours M T R W F N S
ours() {
	local warm=$4
	((${3} >= 30)) || warm=0
	fid_ours schbench message_threads="$1" workers="$2" runtime=$(($3 - warm)) warmup="$warm" \
		footprint="$5"K operations="$6" sleep_us="$7" |
		awk '$1 == "rps" || $1 == "wakeup_p99" || $1 == "request_p99"'
}

# the real one prints its last (final) percentile block and "average rps" on stderr
theirs() {
	"$ref" -m "$1" -t "$2" -r "$3" -w "$4" -F "$5" -n "$6" -s "$7" 2>&1 >/dev/null |
		awk '/^Wakeup Latencies/ { s = "wakeup" } /^Request Latencies/ { s = "request" }
		     /^RPS percentiles/ { s = "" }
		     /99\.0th:/ && s != "" { p99[s] = $3 }
		     /^average rps:/ { rps = $3 }
		     END { if (rps != "") print "rps", rps
			   for (k in p99) print k "_p99", p99[k] }'
}

for c in "${fid_configs[@]}"; do
	IFS=: read -r m t r w f n s <<<"$c"
	fid_rounds "$fid_n_rounds" "m$m-t$t-r$r-F$f-n$n-s$s" ours theirs "$m" "$t" "$r" "$w" "$f" "$n" "$s"
	fid_row "m$m-t$t-r$r-F$f-n$n-s$s" rps rps
	fid_row "m$m-t$t-r$r-F$f-n$n-s$s" wakeup_p99 wakeup_p99
	fid_row "m$m-t$t-r$r-F$f-n$n-s$s" request_p99 request_p99
done
fid_finish
