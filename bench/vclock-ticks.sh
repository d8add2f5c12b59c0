#!/bin/bash
# vclock-ticks.sh - what the virtual clock does to ticks, preemption and
# CPU-bound throughput, against the wall clock and per QEMU (docs/tcg.md,
# "What the virtual clock distorts").
#
# (a) CPU hogs, twice as many as CPUs (sysbench cpu, 3 runs of 3 s after a
#     warmup, --trace), on each topology of TOPOS under each setup of
#     SETUPS: preemption interval of the hogs (CPUs / preemptions per
#     second, from the trace), involuntary switches a run, events/s, and
#     the range over CPUs of each CPU's median hog slice (kept traces): at
#     HZ=250 a slice ends on a tick, so uneven ticks show as uneven slices.
# (b) scenarios/bench/vclock-hackbench.ini on DRIFT_TOPO, virtual clock:
#     the 5 runs of one boot, their CV and the first-to-last change; one
#     boot per hackbench length of DRIFT_LOOPS (default the scenario's
#     480): whether the CV falls as 1/sqrt(length).
# (c) 8 hogs on 1s4c, virtual clock, on each kernel of KERNELS: events/s
#     of the 3 runs (one boot a kernel).
#
# A setup is CLOCK or CLOCK@QEMU: QEMU is "host" (Debian 12's 7.2, with
# the host-time kicks it needs at boot), "lab" (the lab's own choice: for
# --clock virtual the QEMU it fetches into its cache) or a binary's path.
#
#   bench/vclock-ticks.sh                       everything (about 25 min)
#   PARTS=a TOPOS=1s4c bench/vclock-ticks.sh
#   SETUPS="virtual@host virtual@lab" PARTS="b c" ...
#   PARTS=b SETUPS=virtual@lab DRIFT_LOOPS="480 1920" ...
# One guest at a time.  Virtual-clock numbers do not depend on the host's
# load; wall-clock numbers do (the load is printed with them).
set -u
cd "$(dirname "$0")/.." || exit 2

LAB=${LAB:-./lab}
TOPOS=${TOPOS:-1s4c 2s2c2t}
SETUPS=${SETUPS:-wall@host virtual@host virtual@lab}
PARTS=${PARTS:-a b c}
KERNELS=${KERNELS:-debian:6.1 debian:6.12 debian:7.2}
DRIFT_TOPO=${DRIFT_TOPO:-2s2c2t}
DRIFT_LOOPS=${DRIFT_LOOPS:-480}
TMP=$(mktemp -d /tmp/vclock-ticks.XXXXXX)

die() { echo "vclock-ticks: $*" >&2; exit 2; }
cleanup() { [ -n "${KEEP:-}" ] || rm -rf "$TMP"; }
trap cleanup EXIT
command -v python3 >/dev/null || die "python3 is needed to read the JSON"

# hogs.ini THREADS: the vclock-hogs scenario with THREADS hogs
hogs() {
	sed "s/^threads = .*/threads = $1/" scenarios/bench/vclock-hogs.ini >"$TMP/hogs-$1.ini"
	echo "$TMP/hogs-$1.ini"
}

cpus_of() { "$LAB" topo "$1" 2>/dev/null | sed -n 's/.* \([0-9]*\) CPUs.*/\1/p' | head -1; }

# boot NAME SETUP [lab run options...]: one run into $TMP/NAME; prints the
# run directory
boot() {
	local name=${1//\//_} setup=$2 clock qemu
	shift 2
	clock=${setup%@*}
	qemu=host
	[ "$setup" != "$clock" ] && qemu=${setup#*@}
	case $qemu in
	host) qemu=/usr/bin/qemu-system-x86_64 ;;
	lab) qemu= ;;
	esac
	LAB_QEMU=$qemu "$LAB" run --clock "$clock" --results "$TMP/$name" --quiet "$@" \
		>"$TMP/$name.out" 2>&1
	grep '^verdict:' "$TMP/$name.out" | sed "s|^|$name: |" >&2
	ls -d "$TMP/$name"/*/ 2>/dev/null | head -1 | sed 's|/$||'
}

report() {
	python3 - "$@" <<'EOF'
import json, statistics, sys
part, cpus = sys.argv[1], int(sys.argv[2])
label, d = sys.argv[3], sys.argv[4]
try:
    run = json.load(open(d + "/run.json"))
    cases = json.load(open(d + "/cases.json"))["cases"]
    rows = [json.loads(l) for l in open(d + "/results.jsonl")]
except (OSError, ValueError, KeyError, TypeError):
    print("%-32s  no results (%s)" % (label, d)); sys.exit(0)
qemu = run.get("qemu", "?").replace("QEMU emulator version ", "").split(" ")[0]
kick = run.get("icount_kick", "-") if run.get("clock") == "virtual" else "-"
c = cases[0]
m = c.get("metrics", {})
vals = lambda k: m.get(k, {}).get("values") or []
if part == "a":
    pps = vals("preempt_per_s")
    inv = [r["tasks"]["nr_involuntary_switches"] for r in rows
           if not r.get("warmup") and r.get("tasks")]
    ev = vals("events_s")
    # per CPU, the median length of a hog's slice (>= 1 ms) in the kept
    # traces: the ticks a CPU took before it preempted; the range over CPUs
    import glob
    meds = []
    for f in glob.glob(d + "/trace/*/run*/trace.json"):
        per = {}
        for e in json.load(open(f))["traceEvents"]:
            if e.get("ph") == "X" and e.get("cat") == "sysbench-cpu" and e["dur"] >= 1000:
                per.setdefault(e["tid"], []).append(e["dur"] / 1000)
        meds += [statistics.median(v) for v in per.values()]
    print("%-32s %-7s %-5s %10s %10s %10s %13s" % (label, qemu, kick,
          "%.1f" % (cpus * 1000 / statistics.mean(pps)) if pps else "-",
          "%.0f" % statistics.mean(inv) if inv else "-",
          "%.1f" % statistics.mean(ev) if ev else "-",
          "%.1f-%.1f" % (min(meds), max(meds)) if meds else "-"))
elif part == "b":
    t = vals("time")
    cv = 100 * statistics.stdev(t) / statistics.mean(t) if len(t) > 1 else float("nan")
    print("%-32s %-7s %-5s %6.2f%% %+7.2f%%  %s" % (label, qemu, kick, cv,
          100 * (t[-1] - t[0]) / t[0] if t else float("nan"),
          ", ".join("%.3f" % x for x in t)))
else:
    ev = vals("events_s")
    cv = 100 * statistics.stdev(ev) / statistics.mean(ev) if len(ev) > 1 else float("nan")
    print("%-32s %-7s %-5s %6.2f%%  %s" % (label, qemu, kick, cv,
          ", ".join("%.1f" % x for x in ev)))
EOF
}

load() { uptime | sed 's/.*load average: //'; }

for part in $PARTS; do
	case $part in
	a)
		echo "== (a) hogs, 2 per CPU, 3 runs of 3 s, --trace, debian:6.1"
		printf '%-32s %-7s %-5s %10s %10s %10s %13s\n' "topology / setup" qemu kick \
			"preempt ms" "invol/run" "events/s" "cpu slice ms"
		for topo in $TOPOS; do
			n=$(cpus_of "$topo")
			[ -n "$n" ] || die "lab topo $topo: no CPU count"
			ini=$(hogs $((2 * n)))
			for setup in $SETUPS; do
				l0=$(load)
				d=$(boot "a-$topo-$setup" "$setup" --topo "$topo" --kernel debian:6.1 \
					--scenario "$ini" --trace)
				[ -n "$d" ] && "$LAB" trace "$d" >/dev/null 2>&1
				report a "$n" "$topo $setup" "$d"
				[ "${setup%@*}" = wall ] && echo "    (host load before the boot: $l0)"
			done
		done
		;;
	b)
		echo "== (b) vclock-hackbench on $DRIFT_TOPO, virtual clock, one boot, debian:6.1"
		printf '%-32s %-7s %-5s %7s %8s  %s\n' "setup" qemu kick "cv" "last/1st" "times (s)"
		for setup in $SETUPS; do
			[ "${setup%@*}" = virtual ] || continue
			for loops in $DRIFT_LOOPS; do
				d=$(boot "b-$setup-$loops" "$setup" --topo "$DRIFT_TOPO" --kernel debian:6.1 \
					--scenario scenarios/bench/vclock-hackbench.ini --param "loops=$loops")
				report b 0 "$DRIFT_TOPO $setup loops=$loops" "$d"
			done
		done
		;;
	c)
		echo "== (c) 8 hogs on 1s4c, virtual clock, 3 runs of 3 s after a warmup"
		printf '%-32s %-7s %-5s %7s  %s\n' "kernel / setup" qemu kick "cv" "events/s"
		ini=$(hogs 8)
		for k in $KERNELS; do
			for setup in $SETUPS; do
				[ "${setup%@*}" = virtual ] || continue
				d=$(boot "c-$k-$setup" "$setup" --topo 1s4c --kernel "$k" --scenario "$ini")
				report c 4 "$k $setup" "$d"
			done
		done
		;;
	*) die "unknown part '$part' (a, b or c)" ;;
	esac
done
