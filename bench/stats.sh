#!/bin/bash
# stats.sh - simulations behind lab compare's statistics: coverage of the
# 95 % interval of the ratio at 2-30 runs a side, and how often following
# "about N more runs per side" decides a row with a true 5 % change.
# usage: bench/stats.sh [REPLICATES]   (default 4000; about a minute)
set -euo pipefail
cd "$(dirname "$0")/.."
O=${O:-build}
make --no-print-directory -s "$O/bench/stats-sim"
exec "$O/bench/stats-sim" all "${1:-4000}"
