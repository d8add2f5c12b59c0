#!/bin/bash
# aa-calibration.sh - how often `lab compare` calls noise a change: the same
# kernel against itself (A/A), plus known effects that must be flagged.
#
# Booting 40 guests is too slow under TCG, so the static runner runs the
# plan directly on the host (--no-snapshot), `lab report` turns the records
# into cases.json, and a minimal run.json names the host kernel.
#
# Two ways to collect the two sides of a comparison:
#   AA_MODE=rounds (default)  ABBA rounds, as `lab ab` boots kernels: each
#       side pools the runs of AA_ROUNDS runner invocations taken in the
#       order A B B A A B ..., so drift of a shared host lands on both sides
#   AA_MODE=blocks  each side is one runner invocation, A then B: what two
#       `lab run`s one after the other give; on a busy host the drift between
#       the blocks is a real difference, and the tests find it
# Prints the flagged fraction; exit 0 when it is at most 5 % and every known
# effect was flagged with the right sign, else 1.
#
#   bench/aa-calibration.sh              20 pairs (7-9 minutes on 2 CPUs)
#   AA_PAIRS=5 bench/aa-calibration.sh   a quicker look
#   KEEP=1 ...                           keep the run directories
set -u
cd "$(dirname "$0")/.." || exit 2

LAB=${LAB:-./lab}
RUNNER=${RUNNER:-build/guest/runner}
PAIRS=${AA_PAIRS:-20}
MODE=${AA_MODE:-rounds}
ROUNDS=${AA_ROUNDS:-4}
TMP=$(mktemp -d /tmp/aa-calibration.XXXXXX)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$TMP"' EXIT

die() { echo "aa-calibration: $*" >&2; exit 2; }
[ -x "$RUNNER" ] || die "no runner at $RUNNER (make all)"
"$LAB" compare --help >/dev/null 2>&1 || die "$LAB has no compare command"
command -v python3 >/dev/null || die "python3 is needed to read the JSON"
case $MODE in
rounds) PER=2 ;;		# runs per case per round: 2 x 4 rounds = 8 a side
blocks) PER=8 ;;
*) die "AA_MODE is rounds or blocks, not '$MODE'" ;;
esac

scenario() {	# NAME WORKLOAD RUNS PARAMS METRICS  (params "k=v;k=v", metrics "m:better:stat:unit;...")
	local f=$TMP/$1-$RANDOM.ini
	{
		printf '[scenario]\nname = %s\nworkload = %s\nruns = %s\ncounters = schedstat vmstat tasks\n\n[params]\n' "$1" "$2" "$3"
		tr ';' '\n' <<<"$4" | sed 's/=/ = /'
		tr ';' '\n' <<<"$5" | while IFS=: read -r m better stat unit; do
			printf '\n[metric %s]\nbetter = %s\nstatistic = %s\nunit = %s\n' "$m" "$better" "$stat" "$unit"
		done
	} >"$f"
	echo "$f"
}

# plan OUT FILE...: one plan from several scenario files
plan() {
	local out=$1
	shift
	for f; do "$LAB" scenarios --plan "$f" || die "cannot compile $f"; done |
		awk 'NR == 1 || !/^schedlab-plan/' >"$out"
	"$RUNNER" --check-plan "$out" || die "the runner rejects $out"
}

# result DIR PLAN SUITE: one host "run", laid out like results/<run>/
result() {
	mkdir -p "$1"
	cp "$2" "$1/plan.txt"
	printf '{"lab_version": "bench", "command": "aa-calibration", "spec": "host", "spec_resolved": "host-%s", "kernel": "%s", "suite": "%s"}\n' \
		"$(nproc)" "$(uname -r)" "$3" >"$1/run.json"
	"$RUNNER" --plan "$1/plan.txt" --out "$1/records.bin" --no-snapshot >"$1/runner.log" 2>&1 ||
		die "the runner failed in $1 (see runner.log)"
	: >"$1/console.log"
	"$LAB" report "$1" >"$1/report.txt" 2>&1 || die "lab report failed for $1: $(tail -1 "$1/report.txt")"
}

# merge OUT DIR...: one side pooled from rounds: every metric's values
# concatenated; verdicts of failed rounds kept; counters of the first round
merge() {
	local out=$1
	shift
	mkdir -p "$out"
	cp "$1/run.json" "$out/run.json"
	python3 - "$out/cases.json" "$@" <<'EOF'
import json, sys
docs = [json.load(open(d + "/cases.json")) for d in sys.argv[2:]]
base = docs[0]
for c in base["cases"]:
    for m in c.get("metrics", {}).values():
        for k in [k for k in m if k not in ("unit", "better", "statistic", "declared", "values")]:
            del m[k]
    for d in docs[1:]:
        o = next(x for x in d["cases"] if x["case"] == c["case"])
        if o["verdict"] != "PASS" and c["verdict"] == "PASS":
            c["verdict"], c["reason"] = o["verdict"], o["reason"]
        for name, m in o.get("metrics", {}).items():
            if name in c["metrics"]:
                c["metrics"][name]["values"] += m["values"]
json.dump(base, open(sys.argv[1], "w"), indent=1)
EOF
}

# pair A_OUT B_OUT A_PLAN B_PLAN SUITE: the two sides of one comparison
pair() {
	local r w=$1.work
	if [ "$MODE" = blocks ]; then
		result "$1" "$3" "$5"
		result "$2" "$4" "$5"
		return
	fi
	for r in $(seq 1 "$ROUNDS"); do
		# A B, B A, A B, ...: a linear drift hits both sides alike
		if [ $((r % 2)) = 1 ]; then
			result "$w/a$r" "$3" "$5"
			result "$w/b$r" "$4" "$5"
		else
			result "$w/b$r" "$4" "$5"
			result "$w/a$r" "$3" "$5"
		fi
	done
	merge "$1" $(for r in $(seq 1 "$ROUNDS"); do echo "$w/a$r"; done)
	merge "$2" $(for r in $(seq 1 "$ROUNDS"); do echo "$w/b$r"; done)
}

# verdicts JSON...: "<rows> <improved> <regressed> <unchanged> <undecided> <variance>"
verdicts() {
	python3 - "$@" <<'EOF'
import json, sys
n = imp = reg = same = und = var = 0
for f in sys.argv[1:]:
    d = json.load(open(f))
    for r in d["rows"]:
        n += 1
        v = r["verdict"]
        imp += v == "improvement"; reg += v == "regression"
        same += v == "no change"; und += v == "undecided"
        q = r["comparison"]["brown_forsythe"]["q"]
        var += q is not None and q < 0.05
print(n, imp, reg, same, und, var)
EOF
}

# flagged JSON: the rows called changed, one line each
flagged() {
	python3 - "$1" <<'EOF'
import json, sys
for r in json.load(open(sys.argv[1]))["rows"]:
    if r["verdict"] in ("improvement", "regression"):
        c = r["comparison"]
        print("      %s %s: %s, ratio %.3f (95%% CI %.3f..%.3f), %s p=%.3g q=%.3g, CV %.1f%% vs %.1f%%" %
              (r["case"], r["metric"], r["verdict"], r["test"]["normalized"], c["ratio_ci95"][0],
               c["ratio_ci95"][1], c["method"], c["p"], c["q"], r["base"]["cv_pct"], r["test"]["cv_pct"]))
EOF
}

# A small suite with each statistic: hackbench (AMean, Welch), schbench
# (Median, Mann-Whitney), STREAM (HMean, Welch).
hb=$(scenario aa-hackbench hackbench "$PER" "groups=1, 2;loops=50" "time:lower:amean:s")
sb=$(scenario aa-schbench schbench "$PER" "message_threads=1;workers=2;runtime=1;warmup=0" \
	"wakeup_p99:lower:median:us;rps:higher:median:ops/s")
st=$(scenario aa-stream stream "$PER" "array_size=4M;ntimes=3;threads=1" \
	"copy_mb_s:higher:hmean:MB/s;triad_mb_s:higher:hmean:MB/s")
plan "$TMP/aa-suite.txt" "$hb" "$sb" "$st"

echo "A/A ($MODE): $PAIRS pairs of host runs of aa-hackbench, aa-schbench, aa-stream," \
	"$([ "$MODE" = rounds ] && echo $((PER * ROUNDS)) || echo "$PER") runs a side"
start=$(date +%s)
for i in $(seq 1 "$PAIRS"); do
	pair "$TMP/a$i" "$TMP/b$i" "$TMP/aa-suite.txt" "$TMP/aa-suite.txt" aa
	rc=0
	"$LAB" compare "$TMP/a$i" "$TMP/b$i" --json >"$TMP/aa$i.json" 2>"$TMP/aa$i.err" || rc=$?
	[ "$rc" -le 1 ] || die "compare of pair $i exited $rc: $(cat "$TMP/aa$i.err")"
	read -r n imp reg same und var <<<"$(verdicts "$TMP/aa$i.json")"
	printf '  pair %2d: %d rows, %d improved, %d regressed, %d unchanged, %d undecided, %d variance\n' \
		"$i" "$n" "$imp" "$reg" "$same" "$und" "$var"
	flagged "$TMP/aa$i.json"
done
files=$(for i in $(seq 1 "$PAIRS"); do echo "$TMP/aa$i.json"; done)
# shellcheck disable=SC2086
read -r n imp reg same und var <<<"$(verdicts $files)"
changed=$((imp + reg))
pct=$(awk -v f="$changed" -v n="$n" 'BEGIN { printf "%.2f", n ? 100 * f / n : 0 }')
echo "A/A total: $n rows in $PAIRS comparisons: $changed flagged as changed ($pct %; $imp improved," \
	"$reg regressed), $same unchanged, $und undecided; variance flagged in $var rows;" \
	"$(($(date +%s) - start)) s"
ok=1
awk -v p="$pct" 'BEGIN { exit !(p <= 5) }' || { echo "FAIL: more than 5 % of A/A rows flagged"; ok=0; }

# Known effects: twice the loops must be a hackbench regression of about 2x
# (AMean, Welch); three times the matrix work per schbench request must be
# a regression of the requests per second (Median, Mann-Whitney).
known() {	# NAME WORKLOAD METRIC LO HI BASE_LABEL BASE_PARAMS TEST_LABEL TEST_PARAMS
	local b t
	b=$(scenario "ke-$1" "$2" "$PER" "$7" "$3")
	t=$(scenario "ke-$1" "$2" "$PER" "$9" "$3")
	plan "$TMP/ke-$1-base.txt" "$b"
	plan "$TMP/ke-$1-test.txt" "$t"
	pair "$TMP/ke-$1-base" "$TMP/ke-$1-test" "$TMP/ke-$1-base.txt" "$TMP/ke-$1-test.txt" "ke-$1"
	rc=0
	"$LAB" compare "$TMP/ke-$1-base" "$TMP/ke-$1-test" --json >"$TMP/ke-$1.json" 2>"$TMP/ke-$1.err" || rc=$?
	"$LAB" compare "$TMP/ke-$1-base" "$TMP/ke-$1-test" --bare --label "$6" --label "$8" |
		sed -n '/^Case:/,/^$/p' | sed '/^$/d; s/^/    /'
	python3 - "$TMP/ke-$1.json" "$4" "$5" "$rc" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1])); lo, hi, rc = float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
r = d["rows"][0]
ratio, ci, v = r["test"]["normalized"], r["comparison"]["ratio_ci95"], r["verdict"]
ok = v == "regression" and lo <= ratio <= hi and rc == 1
print("  %s %s: ratio %.3f (95%% CI %.3f..%.3f), %s p=%.3g, verdict %s, exit %d -> %s" %
      (r["case"], r["metric"], ratio, ci[0], ci[1], r["comparison"]["method"], r["comparison"]["p"], v, rc,
       "ok" if ok else "FAIL"))
sys.exit(0 if ok else 1)
EOF
}
echo "Known effects ($MODE):"
known hackbench hackbench "time:lower:amean:s" 1.5 2.5 \
	loops=100 "groups=1;loops=100" loops=200 "groups=1;loops=200" || ok=0
known schbench schbench "rps:higher:median:ops/s" 0.2 0.8 \
	ops=5 "message_threads=1;workers=2;runtime=1;warmup=0;operations=5" \
	ops=15 "message_threads=1;workers=2;runtime=1;warmup=0;operations=15" || ok=0

[ "$ok" = 1 ] && echo "PASS" && exit 0
echo "FAIL"
exit 1
