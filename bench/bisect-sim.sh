#!/bin/bash
# bisect-sim.sh - the error rate of lab bisect's step decision, by
# simulation: 1,000 steps per setting as lab bisect takes them (endpoints
# until their test says they differ, then the candidate interleaved with
# fresh boots of both endpoints), half of the candidates truly like good.
# The simulation is tests/unit/test-seqtest.c; this prints its table.
#
#   bench/bisect-sim.sh          (after make unit; a few seconds)
# Exit 0 when every setting's wrong decisions stay at or below alpha.
set -u
cd "$(dirname "$0")/.." || exit 2
bin=${O:-build}/tests/test-seqtest
[ -x "$bin" ] || { echo "bisect-sim: no $bin (make unit)" >&2; exit 2; }
out=$("$bin" 2>&1)
rc=$?
echo "$out" | grep '^effect' | sed 's/^/  /'
[ $rc -eq 0 ] && echo "every setting: wrong steps <= alpha" || echo "a setting exceeded alpha (see above)"
exit $rc
