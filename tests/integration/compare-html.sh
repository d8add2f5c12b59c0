# compare-html - `lab compare --html` on two real runs of a tiny scenario
# (1s2c guest, hackbench x 5 runs under an affinity storm): the page is
# rendered by headless Chromium, its DOM has the tables and SVG plots
# expected, and the screenshot shows rendered tables and plots; the same
# check must fail on the page with its plots or its tables cut out.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
command -v chromium >/dev/null || skip "chromium is not installed (make deps-check)"
command -v gnuplot >/dev/null || skip "gnuplot is not installed (make deps)"
$PY -c 'import PIL' 2>/dev/null || skip "python3-pil is not installed (make deps-check)"

cat >"$TMP/html-tiny.ini" <<'INI'
[scenario]
name = html-tiny
description = compare --html test: tiny hackbench under an affinity storm
workload = hackbench
runs = 5
warmup = 0
deadline = 90
counters = schedstat vmstat tasks

[params]
groups = 1
loops = 60
mode = process, thread
ipc = socket

[metric time]
better = lower
statistic = amean
unit = s

[fault storm]
kind = affinity_storm
target = workload
width = 1
start = 0.2
period = 0.3
hold = 0.1
INI

runs=()
for i in 1 2; do
	rc=0
	"$LAB" run --topo 1s2c --scenario "$TMP/html-tiny.ini" --accel tcg >"$TMP/out" 2>"$TMP/err" || rc=$?
	cat "$TMP/out"; sed 's/^/stderr: /' "$TMP/err"
	[ "$rc" -eq 0 ] || fail "lab run $i exited $rc"
	runs+=("$(sed -n 's/^results: //p' "$TMP/out")")
done

# A hostile label must reach the page escaped.
rc=0
"$LAB" compare --label base --label '<i>tip</i>&' --html "$TMP/report.html" "${runs[@]}" \
	>"$TMP/text" 2>"$TMP/err" || rc=$?
[ "$rc" -le 1 ] || { cat "$TMP/err"; fail "compare --html exited $rc"; }
[ ! -s "$TMP/err" ] || { cat "$TMP/err"; fail "compare --html warned with gnuplot present"; }
[ -s "$TMP/report.html" ] || fail "no HTML report written"
blocks=$(grep -c '^Test          :' "$TMP/text")
echo "text output: $blocks block(s); page: $(wc -c <"$TMP/report.html") bytes"

# What the page must hold: a table per block; a distribution plot per block,
# a counter plot and a fault timeline per case (every case migrates and has
# fault actions here, checked from cases.json).
cases=$($PY - "${runs[0]}/cases.json" <<'PY'
import json, sys
cases = json.load(open(sys.argv[1]))["cases"]
for c in cases:
    assert c["verdict"] == "PASS", c["case"]
    assert c["timeline"], "no fault actions in " + c["case"]
    assert c["tasks"]["nr_migrations"] > 0, c["case"]
print(len(cases))
PY
) || fail "the runs are not what this test needs"
want_svg=$((blocks + 2 * cases))

# The DOM as Chromium built it.
timeout 120 chromium --headless --no-sandbox --disable-gpu --dump-dom \
	"file://$TMP/report.html" >"$TMP/dom.html" 2>/dev/null || fail "chromium --dump-dom failed"
$PY - "$TMP/dom.html" "$blocks" "$want_svg" <<'PY' || fail "the DOM is not the expected page"
import sys
from html.parser import HTMLParser
class Count(HTMLParser):
    def __init__(self):
        super().__init__(); self.n = {}; self.cls = {}; self.text = []
    def handle_starttag(self, tag, attrs):
        self.n[tag] = self.n.get(tag, 0) + 1
        c = dict(attrs).get("class")
        if c:
            self.cls[(tag, c)] = self.cls.get((tag, c), 0) + 1
    def handle_data(self, d):
        self.text.append(d)
p = Count(); p.feed(open(sys.argv[1]).read())
blocks, want_svg = int(sys.argv[2]), int(sys.argv[3])
print("dom: %d tables (%d comparison), %d svg, %d figures, %d script" % (p.n.get("table", 0),
      p.cls.get(("table", "cmp"), 0), p.n.get("svg", 0), p.n.get("figure", 0), p.n.get("script", 0)))
assert p.cls.get(("table", "cmp"), 0) == blocks, "comparison tables"
assert p.cls.get(("table", "ctr"), 0) == 1 and p.cls.get(("table", "faults"), 0) == 1
assert p.n.get("svg", 0) == want_svg and p.n.get("figure", 0) == want_svg, "plots"
assert p.n.get("script", 0) == 0 and p.n.get("i", 0) == 0, "markup from a label"
assert "<i>tip</i>&" in "".join(p.text), "the label as text"
assert "Summary" in "".join(p.text)
PY

# The pixels: table headers are #24386b, the baseline's series #0072b2, the
# test's #d55e00; the page's text and borders use none of them.
cat >"$TMP/pixels.py" <<'PY'
import sys
from PIL import Image
im = Image.open(sys.argv[1]).convert("RGB")
def near(c, tol=40):
    return lambda p: abs(p[0] - c[0]) + abs(p[1] - c[1]) + abs(p[2] - c[2]) <= tol
want = {"table header": ((0x24, 0x38, 0x6b), 4000), "baseline series": ((0x00, 0x72, 0xb2), 1500),
        "test series": ((0xd5, 0x5e, 0x00), 1500)}
got = {k: 0 for k in want}
for n, p in im.getcolors(1 << 24):
    for k, (c, _) in want.items():
        if near(c)(p):
            got[k] += n
print("%s: %s" % (sys.argv[1].split("/")[-1], ", ".join("%s %d px" % kv for kv in got.items())))
bad = [k for k, (c, n) in want.items() if got[k] < n]
if bad:
    print("missing: " + ", ".join(bad)); sys.exit(1)
PY
shot() {
	rm -f "$2"
	timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--screenshot="$2" --window-size=1200,2000 "file://$1" >/dev/null 2>&1
	[ -s "$2" ] || fail "chromium wrote no screenshot of $1"
}
shot "$TMP/report.html" "$TMP/report.png"
$PY "$TMP/pixels.py" "$TMP/report.png" || fail "the screenshot lacks rendered tables or plots"

# The check must be able to fail: the same page without plots, without tables.
$PY - "$TMP/report.html" "$TMP" <<'PY'
import re, sys
page = open(sys.argv[1]).read()
open(sys.argv[2] + "/no-plots.html", "w").write(re.sub(r"<svg.*?</svg>", "", page, flags=re.S))
open(sys.argv[2] + "/no-tables.html", "w").write(re.sub(r"<table.*?</table>", "", page, flags=re.S))
PY
for cut in no-plots no-tables; do
	shot "$TMP/$cut.html" "$TMP/$cut.png"
	if $PY "$TMP/pixels.py" "$TMP/$cut.png"; then
		fail "the pixel check passed on the page with $cut"
	fi
	echo "ok: the pixel check fails on the page with $cut"
done

# Without gnuplot: the tables stay, one warning line, the page says why.
rc=0
LAB_GNUPLOT=/nonexistent/gnuplot "$LAB" compare --html "$TMP/bare.html" "${runs[@]}" \
	>/dev/null 2>"$TMP/err" || rc=$?
[ "$rc" -le 1 ] || fail "compare without gnuplot exited $rc"
[ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q 'without plots' "$TMP/err" ||
	{ cat "$TMP/err"; fail "not one warning line without gnuplot"; }
grep -q 'id=plots-skipped>Plots skipped: ' "$TMP/bare.html" || fail "the page does not say plots were skipped"
! grep -q '<svg' "$TMP/bare.html" || fail "plots without gnuplot?"
[ "$(grep -c '<table class=cmp>' "$TMP/bare.html")" -eq "$blocks" ] || fail "tables missing without gnuplot"
echo "ok: without gnuplot: $(cat "$TMP/err")"
echo "PASS: compare --html"
