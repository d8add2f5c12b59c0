#!/bin/bash
# virtual-clock.sh - how quiet `lab run --clock virtual` (QEMU icount) is
# against the wall clock on a busy host, measured side by side.
#
# While a CPU hog runs on the host, BOOTS boots of each clock, alternating
# (wall, virtual, virtual with a scheduler feature off; then virtual first),
# each running the vclock suite (hackbench, schbench, tbench, each repeated
# within the boot).  Prints per metric and clock the CV within a boot (mean
# over boots) and between boots (of the boots' means); then `lab compare`
# of 3 virtual boots against 3 with sched_feat NO_TTWU_QUEUE (the q column
# says whether the change is flagged; NO_WA_IDLE changes nothing on 8 busy
# CPUs, docs/tcg.md); then the wall time of the smoke
# suite on each clock.
#
#   bench/virtual-clock.sh                  5 boots a clock on small-numa
#   TOPO=2s4c,nps=1 BOOTS=3 bench/virtual-clock.sh
#   FEATURE=NO_SIS_UTIL SMOKE=0 HOG=0 KEEP=1 ...
#   CLOCKS=virtual VARIANT_BOOTS=0 LAB_ICOUNT_KICK_MS=5 ...   another kick period
#   LAB_ICOUNT_KICK=always ...      kick through the runs, not only at boot
#   TOPO=2s4c,llc=2,arch=arm64 CLOCKS=virtual ...   arm64 virt, no kicks
# Needs LAB_CACHE (kernel and initrd) like every boot; 27 minutes on 2
# cores at a load of 4-8 (a virtual-time boot of the vclock suite: 1.5-3
# minutes; at a load of 30, with PTI still on, 11-15).  A virtual-time number does not depend on the host's load, so
# copies with CLOCKS=virtual KEEP=1 may run side by side to get more boots.
set -u
cd "$(dirname "$0")/.." || exit 2

LAB=${LAB:-./lab}
TOPO=${TOPO:-small-numa}
BOOTS=${BOOTS:-5}
VARIANT_BOOTS=${VARIANT_BOOTS:-3}
FEATURE=${FEATURE:-NO_TTWU_QUEUE}
SUITE=${SUITE:-vclock}
CLOCKS=${CLOCKS:-wall virtual}
TMP=$(mktemp -d /tmp/virtual-clock.XXXXXX)
HOG_PID=

die() { echo "virtual-clock: $*" >&2; exit 2; }
cleanup() {
	[ -n "$HOG_PID" ] && kill "$HOG_PID" 2>/dev/null
	[ -n "${KEEP:-}" ] || rm -rf "$TMP"
}
trap cleanup EXIT
command -v python3 >/dev/null || die "python3 is needed to read the JSON"
"$LAB" run --help 2>&1 | grep -q -- --clock || die "$LAB has no --clock (make all)"
[ "$VARIANT_BOOTS" -le "$BOOTS" ] || die "VARIANT_BOOTS must be at most BOOTS"

if [ "${HOG:-1}" != 0 ]; then
	# one busy host core: what a parallel test suite does to the guests
	sh -c 'while :; do :; done' &
	HOG_PID=$!
fi

# boot NAME CLOCK [lab run options...]: one run into $TMP/NAME; prints its
# wall seconds, and the run directory on a second line
boot() {
	local name=$1 clock=$2 t0 t1
	shift 2
	t0=$(date +%s.%N)
	"$LAB" run --topo "$TOPO" --clock "$clock" --results "$TMP/$name" --quiet "$@" \
		>"$TMP/$name.out" 2>&1
	t1=$(date +%s.%N)
	grep '^verdict:' "$TMP/$name.out" | sed "s|^|$name: |" >&2
	python3 -c "print('%.1f' % ($t1 - $t0))"
	ls -d "$TMP/$name"/*/ 2>/dev/null | head -1 | sed 's|/$||'
}

WALL=() VIRT=() VAR=()
for i in $(seq 1 "$BOOTS"); do
	order=$CLOCKS
	[ $((i % 2)) = 0 ] && order=$(tr ' ' '\n' <<<"$CLOCKS" | tac | tr '\n' ' ')
	for clock in $order; do
		out=$(boot "$clock-$i" "$clock" --suite "$SUITE")
		dir=$(sed -n 2p <<<"$out")
		echo "boot $i $clock: $(head -1 <<<"$out") s wall" >&2
		if [ "$clock" = wall ]; then WALL+=("$dir"); else VIRT+=("$dir"); fi
	done
	if [ "$i" -le "$VARIANT_BOOTS" ]; then
		out=$(boot "feat-$i" virtual --suite "$SUITE" --sched-feat "$FEATURE")
		VAR+=("$(sed -n 2p <<<"$out")")
		echo "boot $i virtual $FEATURE: $(head -1 <<<"$out") s wall" >&2
	fi
done

echo "== A/A on $TOPO, $BOOTS boots per clock, host CPU hog: $([ -n "$HOG_PID" ] && echo on || echo off)," \
	"kicks: ${LAB_ICOUNT_KICK:-default}; $(uptime | sed 's/.*load/load/')"
python3 - "${#WALL[@]}" ${WALL[@]+"${WALL[@]}"} ${VIRT[@]+"${VIRT[@]}"} <<'EOF'
import json, statistics, sys
n = int(sys.argv[1])
sides = {"wall": sys.argv[2:2 + n], "virtual": sys.argv[2 + n:]}

def cv(xs):
    xs = [x for x in xs if x is not None]
    if len(xs) < 2 or statistics.mean(xs) == 0:
        return float("nan")
    return 100 * statistics.stdev(xs) / abs(statistics.mean(xs))

table = {}
for clock, dirs in sides.items():
    for d in dirs:
        try:
            cases = json.load(open(d + "/cases.json"))["cases"]
        except (OSError, ValueError):
            continue
        for c in cases:
            for m, v in c.get("metrics", {}).items():
                vals = v.get("values") or []
                if vals:
                    table.setdefault((c["case"], m), {}).setdefault(clock, []).append(vals)
print("%-34s %-7s %5s %12s %12s %13s" % ("case / metric", "clock", "boots", "mean", "cv in boot", "cv btw boots"))
for (case, m), per in sorted(table.items()):
    for clock in ("wall", "virtual"):
        boots = per.get(clock, [])
        if not boots:
            continue
        means = [statistics.mean(b) for b in boots]
        within = statistics.mean([cv(b) for b in boots]) if all(len(b) > 1 for b in boots) else float("nan")
        print("%-34s %-7s %5d %12.4g %11.2f%% %12.2f%%" % (
            (case + " " + m)[:34], clock, len(boots), statistics.mean(means), within, cv(means)))
EOF

if [ "${#VAR[@]}" -gt 0 ]; then
	base=$(IFS=+; echo "${VIRT[*]:0:${#VAR[@]}}")
	test=$(IFS=+; echo "${VAR[*]}")
	echo
	echo "== sensitivity: $FEATURE, ${#VAR[@]} virtual boots a side"
	"$LAB" compare --narrow --label virtual --label "$FEATURE" "$base" "$test" 2>&1
fi

if [ "${#WALL[@]}" -gt 0 ] && [ "${#VIRT[@]}" -gt 0 ]; then
	echo
	echo "== lab compare refuses to mix clocks:"
	"$LAB" compare "${WALL[0]}" "${VIRT[0]}" 2>&1 | tail -1
fi

if [ "${SMOKE:-1}" != 0 ]; then
	echo
	echo "== smoke suite wall time on $TOPO"
	for clock in wall virtual; do
		out=$(boot "smoke-$clock" "$clock" --suite smoke)
		echo "smoke, $clock clock: $(head -1 <<<"$out") s"
	done
fi
