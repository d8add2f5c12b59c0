# fprof - the ftrace function profiler over the NUMA-balancing migration
# path (seed 001's cost per migrated page) on a 2-node guest: a kernel
# with the profiler gives hits, times and time per page per run and a
# reason for a function that is not there; Debian's kernel, which has no
# profiler, runs the case and says why there is no profile.
. "$(dirname "$0")/lib.sh"

# Debian's kernel: no profiler, the case still runs and says why
cat >"$TMP/deb.ini" <<'INI'
[scenario]
name = fprof-debian
workload = exec
runs = 1
deadline = 60
profile = migrate_misplaced_page

[params]
cmd = /bin/busybox true

[metric elapsed]
better = lower
INI
rc=0
"$LAB" run --topo 2s2c --kernel debian --scenario "$TMP/deb.ini" --accel tcg \
	>"$TMP/out" 2>"$TMP/err" || rc=$?
cat "$TMP/out"; sed 's/^/stderr: /' "$TMP/err"
run=$(sed -n 's/^results: //p' "$TMP/out")
[ "$rc" -eq 0 ] || fail "lab run with Debian's kernel exited $rc"
python3 - "$run/cases.json" <<'PY' || fail "checks on the absent profile"
import json, sys
c = json.load(open(sys.argv[1]))["cases"][0]
assert c["verdict"] == "PASS", c
assert c["fprof"]["runs"] == 0 and "CONFIG_FUNCTION_PROFILER" in c["fprof"]["absent"], c["fprof"]
print("absent:", c["fprof"]["absent"])
PY

# lab-base + numa-balancing (FUNCTION_PROFILER, FUNCTION_GRAPH_TRACER),
# cached by content.  Building it costs 6-10 minutes here, more than this
# test's share of make check: a machine without it in the cache SKIPs this
# part unless FPROF_BUILD=1 (`make kernel KSRC=/usr/src/linux-source-6.1.tar.xz
# CONFIGS="lab-base numa-balancing"` builds it too).
echo "== a kernel with the function profiler (lab-base + numa-balancing)"
ksrc=/usr/src/linux-source-6.1.tar.xz
[ -r "$ksrc" ] || skip "no $ksrc (Debian package linux-source-6.1)"
"$LAB" kernel build --ksrc "$ksrc" --config numa-balancing --key-only >"$TMP/kout" 2>"$TMP/kerr" </dev/null ||
	{ cat "$TMP/kerr" >&2; fail "cannot compute the numa-balancing kernel's key"; }
key=$(sed -n 's/^key: //p' "$TMP/kout")
[ -n "$key" ] || fail "lab kernel build printed no key"
if ! grep -qx 'cached: yes' "$TMP/kout"; then
	[ "${FPROF_BUILD:-0}" = 1 ] ||
		skip "numa-balancing kernel $key is not built (FPROF_BUILD=1 builds it, 6-10 min)"
	"$LAB" kernel build --ksrc "$ksrc" --config numa-balancing >"$TMP/kout" 2>"$TMP/kerr" </dev/null ||
		{ cat "$TMP/kerr" >&2; fail "cannot build the numa-balancing kernel"; }
fi
echo "kernel with the profiler: $key"

cat >"$TMP/fprof.ini" <<'INI'
[scenario]
name = fprof-numa
description = test: seed 001 shape with the migration path profiled
workload = numa
runs = 2
deadline = 240
counters = vmstat tasks
profile = task_numa_fault migrate_misplaced_page schedlab_no_such_function
profile_per = vmstat:numa_pages_migrated

[params]
shape = seed001
memory = 64M
threads = 1
passes = 40

[metric time]
better = lower
unit = s
INI
rc=0
"$LAB" run --topo 2s2c --kernel "$key" --scenario "$TMP/fprof.ini" --accel tcg \
	>"$TMP/out" 2>"$TMP/err" || rc=$?
cat "$TMP/out"; sed 's/^/stderr: /' "$TMP/err"
run=$(sed -n 's/^results: //p' "$TMP/out")
[ "$rc" -eq 0 ] || fail "lab run exited $rc"
grep -q '^       fprof: migrate_misplaced_page .* us/numa_pages_migrated$' "$TMP/out" ||
	fail "lab run printed no time per migrated page"
grep -q '^       fprof: schedlab_no_such_function *missing: not in available_filter_functions' \
	"$TMP/out" || fail "lab run did not say why schedlab_no_such_function is missing"
python3 - "$run" <<'PY' || fail "checks on the profile"
import json, sys
run = sys.argv[1]
c = json.load(open(run + "/cases.json"))["cases"][0]
assert c["verdict"] == "PASS", c["reason"]
fp = c["fprof"]
assert fp["runs"] == 2 and "absent" not in fp, fp
assert "available_filter_functions" in fp["missing"]["schedlab_no_such_function"], fp
assert "schedlab_no_such_function" not in fp["functions"], fp
mig = fp["functions"]["migrate_misplaced_page"]
tnf = fp["functions"]["task_numa_fault"]
# every NUMA hinting fault of a misplaced page goes through both
assert tnf["hits_per_run"] > 0 and mig["hits_per_run"] > 0, fp
assert mig["time_us_per_run"] > 0 and 0 < mig["avg_us"] < 1e6, mig
assert abs(mig["avg_us"] * sum(mig["values"]["hits"]) - sum(mig["values"]["time_us"])) \
    <= 1e-6 * sum(mig["values"]["time_us"]), mig
# the denominator: pages migrated in the same window, no more than the case's
pages = sum(fp["per_delta"])
assert fp["per"] == "vmstat:numa_pages_migrated" and pages > 0, fp
assert pages <= c["vmstat_delta"]["numa_pages_migrated"], (pages, c["vmstat_delta"])
assert abs(mig["us_per_unit"] - sum(mig["values"]["time_us"]) / pages) <= 1e-9 * mig["us_per_unit"]
runs = [json.loads(l) for l in open(run + "/results.jsonl")]
assert len(runs) == 2 and all(r["fprof"]["cpus"] == 4 and r["fprof"]["timed"] for r in runs), runs
for r in runs:
    f = r["fprof"]["functions"]["migrate_misplaced_page"]
    if r["fprof"]["per_delta"]:
        assert abs(f["us_per_unit"] - f["time_us"] / r["fprof"]["per_delta"]) <= 1e-9 * f["us_per_unit"]
print("migrate_misplaced_page: %.0f hits/run, %.3f us/call, %.3f us per migrated page "
      "(%d pages in 2 runs); task_numa_fault %.0f hits/run"
      % (mig["hits_per_run"], mig["avg_us"], mig["us_per_unit"], pages, tnf["hits_per_run"]))
PY
# lab compare shows the profile among the counter rows
"$LAB" compare "$run" "$run" >"$TMP/cmp" 2>&1 || fail "lab compare failed: $(cat "$TMP/cmp")"
grep -E '^  fprof migrate_misplaced_page us/numa_pages_migrated +[0-9.]+ +[0-9.]+' "$TMP/cmp" ||
	fail "no per-page row in lab compare: $(cat "$TMP/cmp")"

echo ok
