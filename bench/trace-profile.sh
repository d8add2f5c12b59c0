#!/bin/bash
# trace-profile.sh - where the guest instructions of a recorded sched event go:
# the smoke hackbench untraced and traced under a QEMU plugin that counts
# instructions per translation block, during the measured runs only.
#
# Three boots, all with nokaslr so kernel addresses agree: one prints the
# guest's /proc/kallsyms text symbols on its console (an exec case), then
# `off` and `traced` as bench/trace-overhead.sh boots them, on --clock
# virtual (one TCG thread: the plugin's counters are exact). The plugin
# (bench/tcg-insn-profile.c, built here with cc) counts between the
# runner's two calls of self_cpu_s() around each measured run. Prints the
# instructions of each window, the extra instructions per recorded event,
# and per kernel function the extra per event (traced minus off), heaviest
# first. The sum also holds the workload running differently (a longer run
# schedules differently): functions that no untraced run executes are the
# tracer's own.
#
#   bench/trace-profile.sh                       1s1c, 5 runs, top 40
#   TOPO=2s4c2t TOP=60 bench/trace-profile.sh
#   APPEND=mitigations=off bench/trace-profile.sh   (more on every boot)
set -u
cd "$(dirname "$0")/.." || exit 2

LAB=${LAB:-./lab}
TOPO=${TOPO:-1s1c}
RUNS=${RUNS:-5}
TOP=${TOP:-40}
RUNNER=${RUNNER:-build/guest/runner}
QEMU=${LAB_QEMU:-qemu-system-x86_64}
TMP=$(mktemp -d /tmp/trace-profile.XXXXXX)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$TMP"' EXIT
export LAB_RESULTS=$TMP/results

die() { echo "trace-profile: $*" >&2; exit 2; }
[ -x "$LAB" ] || die "no lab at $LAB (make all)"
for c in python3 nm "${CC:-cc}"; do
	command -v "$c" >/dev/null || die "$c is needed"
done
"$QEMU" -help | grep -q '^-plugin' || die "$QEMU has no -plugin (built without TCG plugins)"
toggle=$(nm "$RUNNER" 2>/dev/null | awk '$3 == "self_cpu_s" { print $1 }')
[ -n "$toggle" ] || die "no self_cpu_s in '$RUNNER' (the runner the initrd holds; make all)"
"${CC:-cc}" -O2 -Wall -shared -fPIC -o "$TMP/tbprof.so" bench/tcg-insn-profile.c ||
	die "cannot build the plugin"
printf '#!/bin/sh\nexec %s -plugin %s "$@"\n' "$QEMU" "$TMP/tbprof.so" >"$TMP/qemu"
chmod +x "$TMP/qemu"

sed "s/^runs = .*/runs = $RUNS/; s/^mode = .*/mode = process/; s/^name = .*/name = prof-hackbench/;
     s/^deadline = .*/deadline = 3000/" scenarios/smoke-hackbench.ini >"$TMP/off.ini"
sed 's/^counters = .*/counters = schedstat tasks schedtrace/' "$TMP/off.ini" >"$TMP/traced.ini"
# no shell quoting in exec's cmd: $IFS is the space, '.' matches one
cat >"$TMP/syms.ini" <<'EOF'
[scenario]
name = kallsyms
description = the guest kernel's text symbols on the console
workload = exec
runs = 1
warmup = 0
deadline = 600

[params]
cmd = /bin/busybox sh -c grep$IFS-E$IFS^f{8}[0-9a-f]{8}.[tTwW].$IFS/proc/kallsyms>/dev/console&&sleep$IFS5

[metric elapsed]
better = lower
statistic = amean
unit = s
EOF

boot() { # NAME SCENARIO CLOCK [plugin]
	local out=$TMP/$1.out run rc=0
	local -a a=(run --topo "$TOPO" --kernel debian --accel tcg --clock "$3"
		--scenario "$2" --append "nokaslr${APPEND:+ $APPEND}")
	if [ -n "${4:-}" ]; then
		LAB_QEMU=$TMP/qemu TBPROF_OUT=$TMP/$1.prof TBPROF_TOGGLE=$toggle \
			"$LAB" "${a[@]}" >"$out" 2>"$TMP/$1.err" || rc=$?
	else
		"$LAB" "${a[@]}" >"$out" 2>"$TMP/$1.err" || rc=$?
	fi
	run=$(sed -n 's/^results: //p' "$out")
	if [ "$rc" -gt 1 ] || [ -z "$run" ]; then
		sed 's/^/  /' "$TMP/$1.err" >&2
		die "lab run ($1) exited $rc"
	fi
	echo "$1: $run ($(cut -d' ' -f1-3 /proc/loadavg) load)" >&2
	echo "$run" >"$TMP/$1.run"
}

# the symbols on the wall clock: under icount the serial line drains in
# virtual time, and the guest powered off with part of them still queued
boot syms "$TMP/syms.ini" wall
boot off "$TMP/off.ini" virtual plugin
boot traced "$TMP/traced.ini" virtual plugin

python3 - "$TMP" "$TOP" "$TOPO" <<'PY'
import bisect, collections, json, re, sys
tmp, top, topo = sys.argv[1], int(sys.argv[2]), sys.argv[3]
run = {m: open("%s/%s.run" % (tmp, m)).read().strip() for m in ("syms", "off", "traced")}
syms = []
for line in open(run["syms"] + "/console.log", errors="replace"):
    m = re.match(r"^(ffffffff[0-9a-f]{8}) [tTwW] (\S+)", line)
    if m:
        syms.append((int(m.group(1), 16), m.group(2)))
if not syms:
    sys.exit("trace-profile: no kernel symbols on the console of " + run["syms"])
syms.sort()
starts = [a for a, _ in syms]

def profile(mode):
    per, total, windows = collections.Counter(), 0, "?"
    for line in open("%s/%s.prof" % (tmp, mode)):
        if line.startswith("#"):
            windows = line.split(None, 2)[2].strip()
            continue
        addr, insns = line.split()[:2]
        addr, insns = int(addr, 16), int(insns)
        total += insns
        if addr < 0xffff800000000000:
            per["[user]"] += insns
            continue
        if addr < 0xffffffff80000000:  # the entry trampolines (PTI), vsyscall
            per["[kernel, no symbol]"] += insns
            continue
        i = bisect.bisect_right(starts, addr) - 1
        per[syms[i][1] if i >= 0 else "[kernel]"] += insns
    return per, total, windows

def run_info(mode):
    times, events = [], 0
    for line in open(run[mode] + "/results.jsonl"):
        r = json.loads(line)
        if r.get("warmup"):
            continue
        t = r.get("metrics", {}).get("time", {}).get("value")
        if t:
            times.append(t)
        events += (r.get("schedtrace") or {}).get("events", 0)
    return times, events

off, off_total, off_win = profile("off")
tr, tr_total, tr_win = profile("traced")
off_t, _ = run_info("off")
tr_t, events = run_info("traced")
if not events:
    sys.exit("trace-profile: the traced boot recorded no events")
print("trace profile: hackbench process 1 group 20 loops, %s, %d + %d measured runs, %d kernel symbols" %
      (topo, len(off_t), len(tr_t), len(syms)))
print("off    %s windows, %.1f M instructions, hackbench %.4f s a run" %
      (off_win, off_total / 1e6, sum(off_t) / len(off_t)))
print("traced %s windows, %.1f M instructions, hackbench %.4f s a run, %d events" %
      (tr_win, tr_total / 1e6, sum(tr_t) / len(tr_t), events))
# the untraced boot ran as many runs: scale it to the traced one's count
scale = len(tr_t) / len(off_t)
print("extra: %.0f instructions per recorded event" % ((tr_total - scale * off_total) / events))
print("%-44s %9s %9s %9s" % ("function", "extra/ev", "traced/ev", "off/ev"))
diff = {k: tr.get(k, 0) - scale * off.get(k, 0) for k in set(tr) | set(off)}
for k, v in sorted(diff.items(), key=lambda x: -x[1])[:top]:
    print("%-44s %9.1f %9.1f %9.1f%s" % (k[:44], v / events, tr.get(k, 0) / events,
          scale * off.get(k, 0) / events, "" if off.get(k) else "  (tracer only)"))
own = sum(v for k, v in tr.items() if not off.get(k) and k != "[user]")
print("functions no untraced run executed: %.0f instructions per event" % (own / events))
PY
