#!/bin/bash
# coresched - seed 004 (scenarios/seed004-coresched.ini) on a small SMT guest,
# 1s2c2t: schbench beside a vector hog, each in a cgroup of its own.
#
# 1. Debian's kernel (no CONFIG_SCHED_CORE): core_sched=off PASSes, and
#    core_sched=on is SKIP with the reason (prctl PR_SCHED_CORE: EINVAL).
# 2. A lab-base + core-sched kernel: both rows PASS; with `on` every run's
#    two groups have different non-zero cookies and the groups were
#    force-idled; with `off` no cookie and no forced idle.  lab compare
#    shows those counters next to the latency rows.
#
# Part 2 needs that kernel in the cache (`make kernel KSRC=/usr/src/
# linux-source-6.1.tar.xz CONFIGS=core-sched`, about 8 minutes here); a
# machine without it SKIPs part 2 unless CORESCHED_BUILD=1, which builds it.
# The guest boots with random.trust_cpu=on: the kernel shows a cookie hashed
# like a %p pointer, which reads 0 until its random pool is ready.
. "$(dirname "$0")/lib.sh"

TOPO=1s2c2t
SCEN=scenarios/seed004-coresched.ini
APPEND=random.trust_cpu=on
TARBALL=/usr/src/linux-source-6.1.tar.xz

# labrun KERNEL: lab run of the scenario; output in $TMP/out, run dir in $run
labrun() {
	rc=0
	"$LAB" run --topo "$TOPO" --scenario "$SCEN" --kernel "$1" --accel tcg --append "$APPEND" \
		>"$TMP/out" 2>"$TMP/err" || rc=$?
	cat "$TMP/out"
	sed 's/^/stderr: /' "$TMP/err"
	run=$(sed -n 's/^results: //p' "$TMP/out")
	[ -n "$run" ] && [ -s "$run/cases.json" ] || fail "no results from kernel $1"
	grep -qx 'topology: PASS' "$TMP/out" || fail "topology not verified on kernel $1"
	# each `on` run enables and disables core scheduling: static keys
	grep -qx 'accel: tcg, single-threaded (the plan turns core scheduling on and off)' "$TMP/out" ||
		fail "the run was not single-threaded TCG"
}

# verdict CASE-SUFFIX: the verdict and reason of seed004-coresched/<suffix>
verdict() {
	json "$run/cases.json" \
		'[c["verdict"] + ": " + c["reason"] for c in d["cases"] if c["case"] == "seed004-coresched/'"$1"'"][0]'
}

# runs CASE-SUFFIX EXPR: EXPR over each measured run record r of the case,
# one line per run
runs() {
	python3 - "$run/results.jsonl" "seed004-coresched/$1" "$2" <<'EOF'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("case") == sys.argv[2] and "run" in r and not r.get("warmup", False) and "status" in r:
        print(eval(sys.argv[3], {"r": r}))
EOF
}

echo "== Debian's kernel: off runs, on is SKIP (no CONFIG_SCHED_CORE)"
labrun debian
v=$(verdict core_sched=off)
echo "off: $v"
case $v in PASS:*) ;; *) fail "core_sched=off on Debian's kernel: $v" ;; esac
v=$(verdict core_sched=on)
echo "on: $v"
case $v in
SKIP:*CONFIG_SCHED_CORE*EINVAL*) ;;
*) fail "core_sched=on on Debian's kernel is not SKIP with the reason: $v" ;;
esac
[ "$rc" -eq 0 ] || fail "lab run exited $rc (a SKIP case must not fail the run)"
[ "$(runs core_sched=off 'r["counters"]["cookies_distinct"] + r["counters"]["lat_cookie_set"]')" = "$(printf '0\n0\n0')" ] ||
	fail "cookies without core scheduling"

echo "== a kernel with CONFIG_SCHED_CORE (lab-base + core-sched)"
rc=0
"$LAB" kernel build --ksrc "$TARBALL" --config core-sched --key-only >"$TMP/kout" 2>&1 || rc=$?
cat "$TMP/kout"
[ "$rc" -eq 0 ] || skip "cannot compute the core-sched kernel's key (no $TARBALL?)"
key=$(sed -n 's/^key: //p' "$TMP/kout")
if ! grep -qx 'cached: yes' "$TMP/kout"; then
	[ "${CORESCHED_BUILD:-0}" = 1 ] ||
		skip "core-sched kernel $key is not built (CORESCHED_BUILD=1 builds it, ~8 min)"
	"$LAB" kernel build --ksrc "$TARBALL" --config core-sched || fail "building the core-sched kernel"
fi
labrun "$key"
[ "$rc" -eq 0 ] || fail "lab run on the core-sched kernel exited $rc"
for c in off on; do
	v=$(verdict core_sched=$c)
	echo "$c: $v"
	case $v in PASS:*) ;; *) fail "core_sched=$c: $v" ;; esac
done

for c in off on; do
	[ "$(runs core_sched=$c 'r["status"]' | grep -cx ok)" = 3 ] || fail "core_sched=$c: not 3 ok runs"
done

echo "-- off: no cookie, no forced idle, each group in its own cgroup"
runs core_sched=off 'r["counters"]'
bad=$(runs core_sched=off \
	'r["counters"]["lat_cookie_set"] + r["counters"]["hog_cookie_set"] + r["counters"]["lat_forceidle_ms"] + r["counters"]["hog_forceidle_ms"] + r["tasks"]["core_forceidle_ns"]' |
	grep -vx 0)
[ -z "$bad" ] || fail "core_sched=off runs have cookies or forced idle: $bad"
runs core_sched=off 'r["counters"]["own_cgroups"]' | grep -qvx 1 && fail "a group shared the run's cgroup"

echo "-- on: two different non-zero cookies in every run, forced idle"
runs core_sched=on 'r["counters"]'
runs core_sched=on 'r["counters"]["lat_cookie_set"] * r["counters"]["hog_cookie_set"] * r["counters"]["cookies_distinct"]' |
	grep -qvx 1 && fail "a core_sched=on run without two distinct cookies"
runs core_sched=on 'r["counters"]["lat_forceidle_ms"] + r["counters"]["hog_forceidle_ms"] > 0' |
	grep -qvx True && fail "a core_sched=on run without forced idle"
fi_ms=$(json "$run/cases.json" \
	'[c["workload_counters"]["lat_forceidle_ms"] + c["workload_counters"]["hog_forceidle_ms"] for c in d["cases"] if c["case"].endswith("core_sched=on")][0]')
echo "forced idle, both groups, mean per run: $fi_ms ms"
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) > 0 else 1)" "$fi_ms" ||
	fail "no forced idle with core_sched=on"

echo "-- lab compare shows the counters beside the latency rows"
"$LAB" compare "$run" "$run" >"$TMP/cmp" || fail "lab compare exited $?"
grep -q 'seed004-coresched wakeup_p99' "$TMP/cmp" || fail "no wakeup_p99 table"
grep -q 'seed004-coresched hog_gflops' "$TMP/cmp" || fail "no hog_gflops table"
grep -E '^ *(cookies_distinct|lat_forceidle_ms|hog_forceidle_ms) ' "$TMP/cmp" || fail "no core-sched counters"
echo ok
