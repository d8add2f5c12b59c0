# compare-utf8 - bytes that are not UTF-8 (and control characters) in a
# kernel name, case, metric, unit, reason and label: lab compare's JSON,
# JUnit XML and HTML must still be valid, checked by real parsers
# (python3's json, xmllint, Chromium).  No guest needed.
. "$(dirname "$0")/lib.sh"

command -v xmllint >/dev/null || skip "xmllint is not installed (make deps-check)"
command -v chromium >/dev/null || skip "chromium is not installed (make deps-check)"
PY=$(command -v python3) || skip "python3 is not installed"

# run NAME KERNEL VALUES: cases.json with bad bytes in every string field
run() {
	mkdir -p "$LAB_RESULTS/$1"
	printf '{"kernel": "%s", "spec": "1s2c", "spec_resolved": "1s2c", "suite": "sm\xffoke"}\n' \
		"$2" >"$LAB_RESULTS/$1/run.json"
	printf '{"cases": [{"case": "x\xc3/n=1\xe2\x82", "verdict": "PASS", "reason": "r\xed\xa0\x80\\u001b[2J",
	  "metrics": {"ti\xc0me": {"unit": "s\xf5", "better": "lower", "statistic": "amean",
	  "values": [%s]}}},
	  {"case": "y/n=2", "verdict": "FAIL", "reason": "bad \xfe\xff bytes \x7f",
	  "metrics": {}}]}\n' "$3" >"$LAB_RESULTS/$1/cases.json"
}
run base $'6.1\xff-base' '1.0, 1.1, 0.9, 1.0, 1.05'
run test $'6.1\xef\xbf\xbe-test' '2.0, 2.2, 1.8, 2.0, 2.1'

rc=0
"$LAB" compare base test --json >"$TMP/out.json" 2>"$TMP/err" || rc=$?
[ "$rc" -le 1 ] || { cat "$TMP/err"; fail "compare --json exited $rc"; }
"$PY" -m json.tool "$TMP/out.json" >/dev/null || fail "--json is not valid (UTF-8) JSON"
grep -q "x.*/n=1" "$TMP/out.json" || fail "the case is missing from the JSON"

rc=0
"$LAB" compare base test --junit "$TMP/junit.xml" --html "$TMP/report.html" >"$TMP/out.txt" 2>"$TMP/err" || rc=$?
[ "$rc" -le 1 ] || { cat "$TMP/err"; fail "compare --junit --html exited $rc"; }
xmllint --noout "$TMP/junit.xml" || fail "the JUnit file is not well-formed XML"
"$PY" - "$TMP/out.txt" "$TMP/report.html" <<'PYEOF' || fail "text or HTML output is not UTF-8 or carries a control character"
import sys
for path in sys.argv[1:]:
    text = open(path, 'rb').read().decode('utf-8')   # raises on bad bytes
    if any(ord(c) < 0x20 and c not in '\n\t' for c in text) or '\x7f' in text:
        sys.exit(1)
PYEOF
timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$TMP/chromium" --dump-dom "file://$TMP/report.html" \
	>"$TMP/dom.html" 2>/dev/null || fail "chromium --dump-dom failed"
grep -q "<table" "$TMP/dom.html" || fail "chromium rendered no table"
grep -q $'\xef\xbf\xbd' "$TMP/dom.html" || fail "no replacement character where the bad bytes were"

# a label must be UTF-8: one line, exit 2
rc=0
"$LAB" compare base test --label $'a\xff' --label b >"$TMP/out" 2>"$TMP/err" || rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "not valid UTF-8" "$TMP/err" ||
	{ cat "$TMP/err"; fail "a label that is not UTF-8 was not refused in one line"; }
echo ok
