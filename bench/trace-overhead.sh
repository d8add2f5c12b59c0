#!/bin/bash
# trace-overhead.sh - what recording the sched tracepoints costs hackbench in
# a TCG guest and on this host: modes alternated in one run.
#
# Modes (TRACE_MODES, default "off traced"; each round runs every mode
# once, the order turning round after round so drift weighs on all alike):
#   off     the scenario without schedtrace: one TCG thread per vCPU
#   traced  counters = schedtrace as lab run does it: the sched events on
#           from boot (trace_event= on the kernel command line), recorded
#           around each measured run on trace_clock "local" (TCG), the
#           saved-cmdlines cache off; one TCG thread per vCPU as well
#   global  the same on trace_clock "global" (what lab run used before)
#   cmd     the same with the saved-cmdlines cache on (trace_options=
#           record-cmd: what lab run had before, the clock local)
#   single  the same traced plan on single-threaded TCG (what traced plans
#           had before the events were enabled at boot)
#   armed   the untraced scenario in a guest booted with the events on
#           as a traced plan's is (local clock, norecord-cmd) but
#           tracing_on off: the tracepoints' own cost, without writing
#           the ring buffer
# A mode takes variants after a '+', each one more kernel command line
# argument, and is compared with "off" of the same variants (or "off"):
#   +nomit  mitigations=off (no PTI, retpolines, return thunks, VERW)
#   +nopti  pti=off (only the page-table isolation; TCG guests have it
#           already, docs/tcg.md)
#   +pti    pti=auto: the kernel's own choice, page-table isolation on
#           for TCG's CPU model (what TCG guests had before pti=off)
#   +wakeup  the events with sched_wakeup as well (the 5-event set lab
#           run recorded before the placement came from sched_waking and
#           sched_migrate_task): QEMU is started through a wrapper that adds
#           it to trace_event= on the command line (the runner flips no
#           event of a boot-traced guest; run.json keeps lab's line): what
#           the event that is no longer recorded cost.  Its events/run and
#           insn/event count the four events only (the runner sends no
#           sched_wakeup format, so the host skips those records); its
#           trace volume shows what sched_wakeup adds
# Clocks (CLOCKS, default "wall virtual"): every round runs every mode on
# each clock; the virtual clock (QEMU icount, one TCG thread) counts
# instructions, so its ratio is the tracer's cost without the host's load,
# and it also prints that cost in guest instructions per recorded event
# (time difference to "off" / events of a run / ns per instruction).
# "bare" is not a clock but this host: `lab bare` runs the same scenarios
# (off and traced only; the host's kernel, its tracefs, restored after).
# Prints per mode the mean of the per-boot means of hackbench's time, their
# CV, the ratio to "off" with a bootstrap 95 % interval (boots resampled),
# the median of the per-boot medians and its ratio, the pooled runs' median
# and minimum and their ratios, the trace volume of the traced modes (raw
# page bytes per second of measured run),
# hackbench's own context switches per run (its tasks' counters), and
# boots that did not pass (a busy host gives RCU stall splats under TCG:
# their times are still used).
# A flight recorder (issue 15) would pay the "traced" mode's cost inside
# each run: the ring buffer already overwrites, only the shipping after the
# run would change.  Exit 0 when every traced ratio is at most 1.05, 1
# otherwise.
#
#   bench/trace-overhead.sh                    3 rounds on 2s4c2t
#   ROUNDS=5 TOPO=2s8c2t bench/trace-overhead.sh
#   TRACE_MODES="off traced single" bench/trace-overhead.sh
#   CLOCKS=virtual TOPO=1s4c bench/trace-overhead.sh
#   CLOCKS=virtual TRACE_MODES="off traced off+nomit traced+nomit" bench/trace-overhead.sh
#   CLOCKS=bare RUNS=10 bench/trace-overhead.sh  (this host, root)
#   SUMMARY="/tmp/trace-overhead.XXXXXX ..." bench/trace-overhead.sh   (KEEP=1 runs, pooled)
set -u
cd "$(dirname "$0")/.." || exit 2

LAB=${LAB:-./lab}
ROUNDS=${ROUNDS:-3}
TOPO=${TOPO:-2s4c2t}
RUNS=${RUNS:-5}
LOOPS=${LOOPS:-20}
# virtual seconds: under icount a guest blocked on the serial line idles,
# and idle virtual time jumps, so shipping a run's pages takes minutes of it
DEADLINE=${DEADLINE:-3000}
MODES=${TRACE_MODES:-off traced}
CLOCKS=${CLOCKS:-wall virtual}
TMP=$(mktemp -d /tmp/trace-overhead.XXXXXX)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$TMP"' EXIT
export LAB_RESULTS=$TMP/results

die() { echo "trace-overhead: $*" >&2; exit 2; }
[ -x "$LAB" ] || die "no lab at $LAB (make all)"
command -v python3 >/dev/null || die "python3 is needed to read the JSON"

events=sched:sched_switch,sched:sched_waking,sched:sched_wakeup_new,sched:sched_migrate_task
# the smoke hackbench, processes only, more runs per boot (LOOPS: 20 is
# the smoke setting; a bare run of it lasts some 40 ms)
sed "s/^runs = .*/runs = $RUNS/; s/^mode = .*/mode = process/; s/^name = .*/name = ovh-hackbench/; s/^loops = .*/loops = $LOOPS/;
     s/^deadline = .*/deadline = $DEADLINE/" \
	scenarios/smoke-hackbench.ini >"$TMP/off.ini"
sed 's/^counters = .*/counters = schedstat tasks schedtrace/' "$TMP/off.ini" >"$TMP/traced.ini"

run_mode() { # MODE ROUND CLOCK
	local base=${1%%+*} app="" v qemu=""
	local -a a=(run --topo "$TOPO" --kernel debian --accel tcg --clock "$3")
	[ "$3" = bare ] && a=(bare --quiet)
	if [ "$base" != "$1" ]; then
		IFS=+ read -r -a vs <<<"${1#*+}"
		for v in "${vs[@]}"; do
			case $v in
			nomit) app+=" mitigations=off" ;;
			nopti) app+=" pti=off" ;;
			pti) app+=" pti=auto" ;;
			wakeup) qemu=$TMP/qemu-wakeup ;;
			*) die "unknown variant '$v' of mode '$1' (nomit, nopti, pti, wakeup)" ;;
			esac
		done
	fi
	case $base in
	off) a+=(--scenario "$TMP/off.ini") ;;
	traced) a+=(--scenario "$TMP/traced.ini") ;;
	global) a+=(--scenario "$TMP/traced.ini") app+=" trace_clock=global" ;;
	cmd) a+=(--scenario "$TMP/traced.ini") app+=" trace_options=record-cmd" ;;
	single) a+=(--scenario "$TMP/traced.ini" --tcg-threads single) ;;
	armed) a+=(--scenario "$TMP/off.ini") app+=" trace_event=$events trace_clock=local trace_options=norecord-cmd lab.schedtrace=boot" ;;
	*) die "unknown mode '$1' (off, traced, global, cmd, single, armed)" ;;
	esac
	if [ "$3" = bare ]; then
		[ "$base" = off ] || [ "$base" = traced ] || die "mode '$1' needs a guest: on bare only off and traced"
		[ -z "$app" ] || die "mode '$1' changes the kernel command line: not on bare"
	elif [ -n "$app" ]; then
		a+=(--append "${app# }")
	fi
	[ -z "$qemu" ] || [ "$3" != bare ] || die "mode '$1' changes the guest's command line: not on bare"
	local rc=0 t0=$SECONDS run
	env ${qemu:+LAB_QEMU="$qemu"} "$LAB" "${a[@]}" >"$TMP/out" 2>"$TMP/err" || rc=$?
	run=$(sed -n 's/^results: //p' "$TMP/out")
	# a loaded host now and then fails TCG's early IO-APIC timer check
	# (a CRASH before any case): that boot says nothing of tracing, boot again
	if [ "$rc" -ne 0 ] && grep -q "^verdict: CRASH" "$TMP/out" && grep -q "topology: not verified" "$TMP/out"; then
		echo "round $2 $1: boot crashed before the cases ($(sed -n 's/^verdict: //p' "$TMP/out" | cut -c1-80)), again" >&2
		rc=0
		env ${qemu:+LAB_QEMU="$qemu"} "$LAB" "${a[@]}" >"$TMP/out" 2>"$TMP/err" || rc=$?
		run=$(sed -n 's/^results: //p' "$TMP/out")
	fi
	# 1 is a case that did not pass (a splat): its times still count
	if [ "$rc" -gt 1 ] || [ -z "$run" ] || [ ! -s "$run/cases.json" ]; then
		sed 's/^/  /' "$TMP/err" >&2
		die "lab run ($1, round $2) exited $rc"
	fi
	echo "$3 $1 $run" >>"$TMP/runs"
	echo "round $2 $3 $1: $((SECONDS - t0)) s wall, $(cut -d' ' -f1-3 /proc/loadavg) load, $run" >&2
}

# +wakeup: the QEMU that lab starts, with sched_wakeup added to the kernel
# command line's trace_event= (after sched_waking)
cat >"$TMP/qemu-wakeup" <<EOF
#!/bin/bash
args=()
for a in "\$@"; do args+=("\${a/,sched:sched_waking,/,sched:sched_waking,sched:sched_wakeup,}"); done
exec ${LAB_QEMU:-qemu-system-x86_64} "\${args[@]}"
EOF
chmod +x "$TMP/qemu-wakeup"

read -r -a modes <<<"$MODES"
read -r -a clocks <<<"$CLOCKS"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
# SUMMARY="<KEEP=1 runs' directories>": the summary of their boots again,
# pooled (the same TOPO and LOOPS, or the pool means nothing)
if [ -n "${SUMMARY:-}" ]; then
	: >"$TMP/runs"
	for d in $SUMMARY; do
		cat "$d/runs" >>"$TMP/runs" || die "no boots listed in '$d/runs'"
	done
	ROUNDS=0
fi
for ((r = 1; r <= ROUNDS; r++)); do
	n=${#modes[@]}
	for clock in "${clocks[@]}"; do
		for ((i = 0; i < n; i++)); do
			# round r starts at mode r-1: off boot / boot off / ...
			run_mode "${modes[$(((i + r - 1) % n))]}" "$r" "$clock"
		done
	done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

python3 - "$TMP/runs" "$TOPO" "$ROUNDS" "$load_after" "$LOOPS" <<'PY'
import json, random, statistics, sys
by, notes = {}, []
for line in open(sys.argv[1]):
    clock, mode, run = line.split(None, 2)
    run = run.strip()
    mode = (clock, mode)
    c = json.load(open(run + "/cases.json"))["cases"][0]
    times = c.get("metrics", {}).get("time", {}).get("values")
    if c["verdict"] != "PASS":
        notes.append("%s %s: %s %s" % (clock, mode[1], c["verdict"], c["reason"][:90]))
    if not times:
        continue
    vol, evs, sws = [], [], []
    for l in open(run + "/results.jsonl"):
        r = json.loads(l)
        tk = r.get("tasks")
        if not r.get("warmup") and tk and "nr_voluntary_switches" in tk:
            sws.append(tk["nr_voluntary_switches"] + tk["nr_involuntary_switches"])
        st = r.get("schedtrace")
        if r.get("warmup") or not st or "bytes" not in st:
            continue
        t = r.get("metrics", {}).get("time", {}).get("value") or r.get("wall_s")
        if t:
            vol.append(st["bytes"] / t)
        if "events" in st:
            evs.append(st["events"])
    rj = json.load(open(run + "/run.json"))
    tcg = rj.get("tcg_threads", "bare" if rj.get("backend") == "bare" else "?")
    ns_insn = 2 ** rj["icount_shift"] if rj.get("clock") == "virtual" and "icount_shift" in rj else None
    by.setdefault(mode, []).append((statistics.mean(times), vol, tcg, statistics.median(times), evs, ns_insn, times, sws))
def cv(xs):
    return 100 * statistics.stdev(xs) / statistics.mean(xs) if len(xs) > 1 else float("nan")
print("trace overhead: hackbench process 1 group %s loops, %s, %s rounds, load after %s" %
      (sys.argv[5], sys.argv[2], sys.argv[3], sys.argv[4]))
bad = 0
for mode, rows in sorted(by.items()):
    # "traced+nomit" against "off+nomit"; "traced+wakeup" against "off"
    variant = mode[1][len(mode[1].split("+")[0]):]
    off = by.get((mode[0], "off" + variant)) or by.get((mode[0], "off"))
    base = statistics.mean(r[0] for r in off) if off else None
    means = [r[0] for r in rows]
    vols = [v for r in rows for v in r[1]]
    line = "%-7s %-13s boots %d (tcg %s)  time %.4f s  CV %5.1f %%" % (
        mode[0], mode[1], len(rows), "/".join(sorted(set(r[2] for r in rows))),
        statistics.mean(means), cv(means))
    is_off = mode[1].split("+")[0] == "off"
    if base and not is_off:
        ratio = statistics.mean(means) / base
        bad += ratio > 1.05
        line += "  ratio %.3f" % ratio
        # how sure: the boots resampled, each side on its own (fixed seed)
        om = [r[0] for r in off]
        if len(means) > 2 and len(om) > 2:
            rnd = random.Random(1)
            bs = sorted(statistics.mean(rnd.choices(means, k=len(means))) /
                        statistics.mean(rnd.choices(om, k=len(om))) for _ in range(10000))
            line += " (95 %% CI %.3f..%.3f)" % (bs[250], bs[9750])
    # a run on a stalled guest clock (RCU stall splats) can take minutes:
    # the median of the per-boot medians does not follow it
    med = statistics.median(r[3] for r in rows)
    line += "  median %.4f s" % med
    if off and not is_off:
        line += " (%.3f)" % (med / statistics.median(r[3] for r in off))
    # on a loaded host (bare) the pooled runs say more than the boots:
    # their median, and the fastest run (the one the load spared)
    pool = [t for r in rows for t in r[6]]
    line += "  runs %d: median %.4f s, min %.4f s" % (len(pool), statistics.median(pool), min(pool))
    if off and not is_off:
        opool = [t for r in off for t in r[6]]
        line += " (%.3f, %.3f)" % (statistics.median(pool) / statistics.median(opool), min(pool) / min(opool))
    if vols:
        line += "  trace %.0f KiB/s" % (statistics.mean(vols) / 1024)
    # hackbench's own context switches: the tracer changes them on SMP
    sws = [x for r in rows for x in r[7]]
    if sws:
        line += "  %.0f switches/run" % statistics.mean(sws)
    # virtual time is instructions: the extra ones per recorded event
    evs = [e for r in rows for e in r[4]]
    ns = rows[0][5]
    if base and not is_off and evs and ns:
        line += "  %.0f events/run, %.0f insn/event" % (
            statistics.mean(evs), (statistics.mean(means) - base) * 1e9 / ns / statistics.mean(evs))
    print(line)
for n in notes:
    print("  not PASS:", n)
sys.exit(1 if bad else 0)
PY
