# lava - a real LAVA 2023.01 on this host (host-tools/lava/lava-local): up;
# the smoke suite as LAVA jobs on qemu-01 (TCG) through lab lava run, on
# 1s2c2t and 2s2c, imported as run directories with the files, case ids and
# topology verdict of a local lab run, and compared with one; a bad token,
# an unreachable server and an unknown device type are one line and exit 2;
# a job whose device failed its health check (a health check that cannot
# deploy marks qemu-01 Bad) ends in about a minute as FAIL naming the
# device and LAVA's words, not at --timeout; lava run with lab run's boot
# options; lab ab --lava with a variant over http, one round of six jobs;
# then down and no LAVA or PostgreSQL
# process left.  Slow lane: about 5 min with the packages installed, about
# 10 from scratch (up with apt-get update and install: 307 s).
# A farm already running is somebody's: the test uses it and leaves it up.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root: lava-local installs packages and starts system daemons"
LL=host-tools/lava/lava-local
URL=http://127.0.0.1:8000/api/v0.2
TOPO=1s2c

if ! dpkg-query -W -f='${db:Status-Status}' lava-server 2>/dev/null | grep -qx installed &&
	! apt-cache policy lava-server 2>/dev/null | grep -q 'Candidate: 2023'; then
	skip "lava-server 2023.x is neither installed nor installable (apt-get update?)"
fi

ours='' pg_before=''
if ! $LL status >/dev/null 2>&1; then
	ours=1
fi
pg_isready -q -h 127.0.0.1 2>/dev/null && pg_before=1
HC=/etc/lava-server/dispatcher-config/health-checks/qemu.yaml
hc_restore() {
	# the failing health check and the device it marked Bad, as up left them
	if [ -e "$HC.lab-test" ]; then
		rm -f "$HC" "$HC.lab-test"
		lava-server manage devices update qemu-01 --health GOOD >/dev/null 2>&1 || true
	fi
}
farm_down() {
	local rc=$?
	[ -z "${http_pid:-}" ] || kill "$http_pid" 2>/dev/null || true
	hc_restore
	if [ -n "$ours" ]; then
		$LL down || true
		# the daemons and PostgreSQL (zombies waiting on a PID 1 that
		# does not reap are gone already)
		local left
		local pat='gunicorn3 lava_server|lava-server manage|lava-worker|lava-run'
		[ -n "$pg_before" ] || pat="$pat|bin/postgres|postgres: "
		left=$(ps -eo stat=,pid=,args= | awk '$1 !~ /^Z/' | grep -E "$pat" | grep -v grep || true)
		if [ -n "$left" ]; then
			echo "FAIL: processes left after down: $left" >&2
			[ $rc -eq 0 ] && rc=1
		fi
	fi
	(exit $rc)
	keep_on_failure
}
trap farm_down EXIT

t0=$SECONDS
$LL up || fail "lava-local up"
echo "up: $((SECONDS - t0)) s"
tokfile=$($LL token)
[ "$(stat -c %a "$tokfile")" = 600 ] || fail "token file $tokfile is not mode 0600"
tok=$(cat "$tokfile")

SERVER=http://127.0.0.1:8000
export LAB_RESULTS=$TMP/results
chmod 755 "$TMP"	# the worker reads the artifacts through file:// URLs

echo "bad input: one line, exit 2"
printf 'not-the-token\n' >"$TMP/badtok" && chmod 600 "$TMP/badtok"
expect_bad "a wrong token" "$LAB" lava run --server $SERVER --token-file "$TMP/badtok" \
	--artifacts "file://$TMP/bad1/job" --dir "$TMP/bad1" --topo 1s2c --suite ab-tiny
grep -q "refused the token (HTTP 403): Invalid token." "$TMP/err" || fail "the error does not say the token was refused"
grep -q "not-the-token" "$TMP/err" "$TMP/out" && fail "the token was printed"
[ ! -e "$TMP/bad1" ] || fail "a refused lab lava run left its directory"
mkdir -p "$TMP/bad1"
"$LAB" lava export --topo 1s2c --suite ab-tiny --artifacts "file://$TMP/bad1/job" --out "$TMP/bad1/job" >/dev/null ||
	fail "lab lava export"
expect_bad "an unreachable server" "$LAB" lava submit --server http://127.0.0.1:9 --token-file "$tokfile" \
	"$TMP/bad1/job/job.json"
grep -q "cannot reach LAVA at http://127.0.0.1:9" "$TMP/err" || fail "the error does not say the server is unreachable"
python3 - "$TMP/bad1/job/job.json" "$TMP/nosuchtype.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["device_type"] = "nosuchtype"
json.dump(d, open(sys.argv[2], "w"))
PY
expect_bad "an unknown device type" "$LAB" lava submit --server $SERVER --token-file "$tokfile" "$TMP/nosuchtype.json"
grep -q "rejected the job definition: Devices unavailable: Device type 'nosuchtype' is unavailable." "$TMP/err" ||
	fail "the error does not carry LAVA's words"

echo "bare-metal definitions: LAVA's own validation (jobs/validate/ needs no device of the type)"
for dt in x86 lenovo-hr330a-7x33cto1ww-emag qcom-qdf2400 bcm2711-rpi-4-b rk3399-rock-pi-4b \
	meson-g12b-a311d-khadas-vim3; do
	"$LAB" lava export --device-type $dt --suite smoke --artifacts "http://files.example/$dt" \
		--out "$TMP/bare-$dt" >/dev/null || fail "lab lava export --device-type $dt"
	python3 - "$TMP/bare-$dt/job.json" >"$TMP/validate.json" <<'PY'
import json, sys
print(json.dumps({"definition": open(sys.argv[1]).read()}))
PY
	answer=$(curl -sS -X POST -H 'Content-Type: application/json' --data @"$TMP/validate.json" "$URL/jobs/validate/")
	[ "$answer" = '{"message":"Job valid."}' ] || fail "LAVA says of the $dt definition: $answer"
	echo "$dt: $answer"
done
expect_bad "a topology for a machine of its own" "$LAB" lava export --device-type x86 --topo 1s2c \
	--suite smoke --artifacts "file://$TMP/bad2" --out "$TMP/bad2"
[ ! -e "$TMP/bad2" ] || fail "a refused export left its directory"
expect_bad "a device type the lab cannot write" "$LAB" lava run --server $SERVER --token-file "$tokfile" \
	--device-type nosuchtype --artifacts "file://$TMP/bad3/job" --dir "$TMP/bad3" --topo 1s2c --suite ab-tiny
grep -q "the lab writes jobs for qemu, x86" "$TMP/err" || fail "the error does not list the device types"
[ ! -e "$TMP/bad3" ] || fail "a refused lab lava run left its directory"

echo "a device whose health check failed: a verdict in about a minute, not at --timeout"
[ ! -e "$HC" ] || fail "$HC exists: a health check of the farm's own"
: >"$HC.lab-test"
cat >"$HC" <<EOF
device_type: qemu
job_name: schedlab failing health check
timeouts: {job: {minutes: 3}, action: {minutes: 2}}
priority: medium
visibility: public
context: {arch: amd64, no_kvm: true, memory: 256}
actions:
- deploy:
    to: tmpfs
    timeout: {minutes: 1}
    images:
      kernel: {image_arg: '-kernel {kernel}', url: 'file://$TMP/no-such-kernel'}
- boot: {method: qemu, media: tmpfs, timeout: {minutes: 1}}
EOF
chown lavaserver:lavaserver "$HC"
# Unknown: LAVA runs the health check before any job, and it fails
lava-server manage devices update qemu-01 --health UNKNOWN
api() { curl -sf -H "Authorization: Token $tok" "$URL/$1" >"$TMP/api.json" && json "$TMP/api.json" "$2"; }
h=
for _ in $(seq 90); do
	h=$(api devices/qemu-01/ 'd["health"]' || true)
	[ "$h" = Bad ] && break
	sleep 1
done
[ "$h" = Bad ] || fail "qemu-01 is '$h', not Bad, after its failing health check"
hcjob=$(api "devices/?device_type=qemu" 'd["results"][0]["last_health_report_job"]')
echo "qemu-01 Bad after health check job $hcjob"
t=$SECONDS
rc=0
"$LAB" lava run --server $SERVER --token-file "$tokfile" --artifacts "file://$TMP/lava-bad/job" \
	--dir "$TMP/lava-bad" --topo 1s2c --suite ab-tiny --results "$TMP/results-bad" >"$TMP/out" 2>"$TMP/err" || rc=$?
secs=$((SECONDS - t))
cat "$TMP/err"
[ "$rc" = 1 ] || { cat "$TMP/out"; fail "lab lava run with no usable device exited $rc, not 1"; }
[ "$secs" -lt 300 ] || fail "lab lava run with no usable device took $secs s"
grep -q "^lava: no usable device of type qemu: qemu-01 Bad; waiting 60 s for one" "$TMP/err" ||
	fail "no progress line naming the Bad device"
run=$(sed -n 's/^results: //p' "$TMP/out")
[ -f "$run/verdict.json" ] || fail "no run directory for the canceled job"
python3 - "$run" "$hcjob" <<'PY' || fail "the canceled job's run does not say why"
import json, sys
run, hc = sys.argv[1], sys.argv[2]
v = json.load(open(run + "/verdict.json"))
r = json.load(open(run + "/run.json"))["lava"]
assert v["verdict"] == "FAIL", v
want = "LAVA infrastructure error: no usable device of type qemu: qemu-01 Bad (health check job %s Incomplete: " % hc
assert v["reason"].startswith(want), v["reason"]
assert "no-such-kernel' does not exist or is not readable" in v["reason"], v["reason"]
assert r["health"] == "Canceled" and r["error_type"] == "Infrastructure" and int(r["job_id"]) > 0, r
print("verdict:", v["verdict"], v["reason"])
PY
badjob=$(json "$run/run.json" 'd["lava"]["job_id"]')
[ "$(api "jobs/$badjob/" 'd["state"] + " " + d["health"]')" = "Finished Canceled" ] ||
	fail "job $badjob is not canceled on the server"
echo "no usable device: job $badjob canceled, FAIL in $secs s (--timeout is 6 h)"
# --timeout reached while no device takes the job: canceled, exit 1, and
# its published copy removed like a finished job's (nobody downloads it now)
mkdir "$TMP/www-timeout"
rc=0
"$LAB" lava run --server $SERVER --token-file "$tokfile" --artifacts http://127.0.0.1:8766/ \
	--publish "$TMP/www-timeout" --timeout 5 --dir "$TMP/lava-timeout" --topo 1s2c --suite ab-tiny \
	--results "$TMP/results-timeout" >"$TMP/out" 2>"$TMP/err" || rc=$?
[ "$rc" = 1 ] || { cat "$TMP/out" "$TMP/err"; fail "lab lava run past --timeout exited $rc, not 1"; }
grep -q "did not finish in 5 s (state .*): canceled" "$TMP/err" || { cat "$TMP/err"; fail "no line for the timeout"; }
[ -z "$(ls -A "$TMP/www-timeout")" ] || { ls -a "$TMP/www-timeout"; fail "the timed-out job's published copy is left"; }
tjob=$(sed -n 's/^lava: job \([0-9]*\) submitted.*/\1/p' "$TMP/err")
[ "$(api "jobs/$tjob/" 'd["state"] + " " + d["health"]')" = "Finished Canceled" ] ||
	fail "job $tjob is not canceled on the server after --timeout"
echo "--timeout: job $tjob canceled, its published copy removed"
# a SIGINT while the job waits: this run's job is canceled and its copy
# removed the same way, and the run says which signal stopped it
mkdir "$TMP/www-sigint"
"$LAB" lava run --server $SERVER --token-file "$tokfile" --artifacts http://127.0.0.1:8766/ \
	--publish "$TMP/www-sigint" --dir "$TMP/lava-sigint" --topo 1s2c --suite ab-tiny \
	--results "$TMP/results-sigint" >"$TMP/out" 2>"$TMP/err" &
pid=$!
for _ in $(seq 60); do
	grep -q '^lava: job [0-9]* submitted' "$TMP/err" && break
	sleep 0.5
done
kill -INT $pid
rc=0
wait $pid || rc=$?
[ "$rc" = 1 ] || { cat "$TMP/out" "$TMP/err"; fail "lab lava run stopped by SIGINT exited $rc, not 1"; }
grep -q "stopped by Interrupt: job [0-9]* (state .*) canceled" "$TMP/err" || { cat "$TMP/err"; fail "no line for the signal"; }
[ -z "$(ls -A "$TMP/www-sigint")" ] || { ls -a "$TMP/www-sigint"; fail "the stopped job's published copy is left"; }
sjob=$(sed -n 's/^lava: job \([0-9]*\) submitted.*/\1/p' "$TMP/err")
for _ in $(seq 15); do
	[ "$(api "jobs/$sjob/" 'd["state"]')" = Finished ] && break
	sleep 1
done
[ "$(api "jobs/$sjob/" 'd["state"] + " " + d["health"]')" = "Finished Canceled" ] ||
	fail "job $sjob is not canceled on the server after SIGINT"
echo "SIGINT: job $sjob canceled, its published copy removed"
hc_restore
for _ in $(seq 30); do
	[ "$(api devices/qemu-01/ 'd["health"]' || true)" = Good ] && break
	sleep 1
done

# lava_run TOPO: lab lava run of the smoke suite; its run directory in $run
lava_run() {
	local t=$SECONDS
	rm -rf "$TMP/results-$1"
	"$LAB" lava run --server $SERVER --token-file "$tokfile" --artifacts "file://$TMP/lava-$1/job" \
		--dir "$TMP/lava-$1" --topo "$1" --suite smoke --results "$TMP/results-$1" \
		>"$TMP/out" 2>"$TMP/err" || { cat "$TMP/out" "$TMP/err"; fail "lab lava run on $1 exited non-zero"; }
	cat "$TMP/err"
	run=$(sed -n 's/^results: //p' "$TMP/out")
	[ -f "$run/run.json" ] || fail "lab lava run on $1 made no run directory"
	grep -q '^verdict: PASS' "$TMP/out" || { cat "$TMP/out"; fail "the $1 job's run is not PASS"; }
	grep -q '^topology: PASS' "$TMP/out" || fail "the $1 job's topology is not verified"
	[ "$(json "$run/run.json" 'd["lava"]["server"]')" = "$SERVER" ] || fail "run.json does not name the server"
	[ "$(json "$run/run.json" 'd["lava"]["device"]')" = qemu-01 ] || fail "run.json does not name the device"
	json "$run/run.json" 'd["lava"]["job_id"]' >/dev/null || fail "run.json has no job id"
	grep -rq -- "$(cat "$tokfile")" "$run" "$TMP/lava-$1" && fail "the token is in the results"
	echo "lab lava run $1: $((SECONDS - t)) s"
}

lava_run 2s2c

echo "http:// artifacts through --publish (a web server on this host serves the directory)"
expect_bad "http:// artifacts nobody serves" "$LAB" lava run --server $SERVER --token-file "$tokfile" \
	--artifacts http://127.0.0.1:8765 --dir "$TMP/bad4" --topo 1s2c --suite ab-tiny
grep -q -- "--publish DIR copies them" "$TMP/err" || fail "the error does not name --publish"
[ ! -e "$TMP/bad4" ] || fail "a refused lab lava run left its directory"
mkdir "$TMP/www"
python3 -m http.server 8765 --bind 127.0.0.1 --directory "$TMP/www" >"$TMP/http.log" 2>&1 &
http_pid=$!
sleep 1
rc=0
"$LAB" lava run --server $SERVER --token-file "$tokfile" --artifacts http://127.0.0.1:8765/ --publish "$TMP/www" \
	--dir "$TMP/lava-http" --topo 1s2c --suite ab-tiny --results "$TMP/results-http" >"$TMP/out" 2>"$TMP/err" || rc=$?
[ "$rc" = 0 ] || { cat "$TMP/out" "$TMP/err"; fail "lab lava run with --publish exited $rc"; }
grep -q '^verdict: PASS' "$TMP/out" || fail "the --publish job's run is not PASS"
[ "$(grep -c 'GET /lab-lava-.*/initrd.cpio HTTP/1.[01]" 200' "$TMP/http.log")" = 1 ] ||
	{ cat "$TMP/http.log"; fail "the device did not download the initrd over http"; }
ls -a "$TMP/www" | grep -q 'lab-lava' && fail "the published files (or half of them) are left after the job"
echo "--publish: the device downloaded the job's files over http; they are gone once the job finished"
lava_run 1s2c2t
lrun=$run
# the same job as a machine of its own would report it (no spec in the
# metadata): the topology is what the runner saw, recorded as lab bare does
python3 - "$TMP/lava-1s2c2t/lava-job.json" "$TMP/bare-job.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); del d["spec"]
json.dump(d, open(sys.argv[2], "w"))
PY
"$LAB" lava import --job "$TMP/bare-job.json" --plan "$TMP/lava-1s2c2t/job/plan.txt" --results "$TMP/results-bare" \
	"$TMP/lava-1s2c2t/lava-log.yaml" >"$TMP/out" 2>&1 || { cat "$TMP/out"; fail "the import without a spec"; }
brun=$(sed -n 's/^results: //p' "$TMP/out")
grep -q '^topology: not verified' "$TMP/out" || fail "an import without a spec claims a topology verdict"
python3 - "$brun" <<'PY' || fail "the import without a spec does not record the topology the runner saw"
import json, sys
r = json.load(open(sys.argv[1] + "/run.json"))
assert r["spec"] == "1s2c2t" and r["host_topology"] and "topology_notes" in r, (r["spec"], r.get("topology_notes"))
print("without a spec: the runner saw", r["spec"])
PY
t=$SECONDS
"$LAB" run --topo 1s2c2t --suite smoke --results "$TMP/local" >"$TMP/out" 2>&1 || { cat "$TMP/out"; fail "local lab run"; }
local=$(sed -n 's/^results: //p' "$TMP/out")
echo "lab run 1s2c2t: $((SECONDS - t)) s"
python3 - "$local" "$lrun" <<'PY' || fail "the imported run differs in structure from the local one"
import json, os, sys
a, b = sys.argv[1:]
fa, fb = sorted(os.listdir(a)), sorted(os.listdir(b))
# LAVA ran its own QEMU (docs/lava.md)
missing = [f for f in fa if f not in fb and f != "qemu.log"]
assert not missing, ("files of a local run missing", missing)
ca = [(c["case"], c["verdict"]) for c in json.load(open(os.path.join(a, "cases.json")))["cases"]]
cb = [(c["case"], c["verdict"]) for c in json.load(open(os.path.join(b, "cases.json")))["cases"]]
assert ca == cb, (ca, cb)
va, vb = json.load(open(os.path.join(a, "verdict.json"))), json.load(open(os.path.join(b, "verdict.json")))
assert va["verdict"] == vb["verdict"] == "PASS", (va["verdict"], vb["verdict"])
assert va.get("topology") and vb.get("topology"), "no topology verdict"
print("same case ids and verdicts:", len(ca), "cases; files", len(fa), "and", len(fb))
PY
# exit 1 is a row worse: two boots on two different QEMUs differ, that is not the point here
rc=0
"$LAB" compare "$local" "$lrun" >"$TMP/cmp" 2>&1 || rc=$?
[ "$rc" -le 1 ] || { cat "$TMP/cmp"; fail "lab compare of the local and the LAVA run exited $rc"; }
grep -q '^Case:' "$TMP/cmp" || fail "lab compare printed no table"
"$LAB" report "$lrun" >/dev/null 2>&1 || fail "lab report of the imported run"

echo "lab run's boot options through LAVA: nosmt and a scheduler feature, checked by the import"
t=$SECONDS
rc=0
"$LAB" lava run --server $SERVER --token-file "$tokfile" --artifacts "file://$TMP/lava-opts/job" \
	--dir "$TMP/lava-opts" --topo 1s2c2t --suite ab-tiny --smt off --sched-feat NO_WA_IDLE --label nowa \
	--results "$TMP/results-opts" >"$TMP/out" 2>"$TMP/err" || rc=$?
[ "$rc" = 0 ] || { cat "$TMP/out" "$TMP/err"; fail "lab lava run with --smt off --sched-feat exited $rc"; }
grep -q '^topology: PASS' "$TMP/out" || fail "the nosmt job's topology is not verified"
grep -q 'nosmt lab.sched_feat=NO_WA_IDLE' "$TMP/lava-opts/job/job.json" || fail "the job's command line lacks the options"
orun=$(sed -n 's/^results: //p' "$TMP/out")
python3 - "$orun" <<'PY' || fail "the import does not record or check the boot options"
import json, sys
d = sys.argv[1]
r = json.load(open(d + "/run.json"))
assert r["smt"] == "off" and r["sched_feat"] == ["NO_WA_IDLE"] and r["label"] == "nowa", r
f = json.load(open(d + "/sched-features.json"))
assert f["requested"] == ["NO_WA_IDLE"] and f["features"]["WA_IDLE"] is False, f
print("nosmt, NO_WA_IDLE in effect on the LAVA guest")
PY
echo "lab lava run with boot options: $((SECONDS - t)) s"

t=$SECONDS
rc=0
"$LAB" ab --topo 1s2c --base debian --test debian --variant sched_feat=NO_WA_IDLE --suite ab-tiny --lava $SERVER \
	--lava-token-file "$tokfile" --lava-artifacts http://127.0.0.1:8765 --lava-publish "$TMP/www" \
	>"$TMP/out" 2>"$TMP/err" || rc=$?
kill $http_pid
cat "$TMP/out"
[ "$(grep -c 'GET /lab-lava-.*/initrd.cpio HTTP/1.[01]" 200' "$TMP/http.log")" = 7 ] ||
	{ cat "$TMP/http.log"; fail "the fleet's devices did not download over http"; }
[ "$rc" = 0 ] || { cat "$TMP/err"; fail "lab ab --lava exited $rc"; }
grep -q "^ab: on LAVA at $SERVER: 6 jobs at a time, submitted in ABBA order" "$TMP/out" || fail "no LAVA line in the header"
dir=$(sed -n 's/^ab: directory //p' "$TMP/out")
[ "$(json "$dir/ab.json" '",".join(b["verdict"] for b in d["boots"])')" = PASS,PASS,PASS,PASS,PASS,PASS ] ||
	fail "the ab's LAVA jobs did not all pass"
python3 - "$dir" <<'PY' || fail "the variant's LAVA jobs did not boot with it"
import glob, json, sys
runs = [json.load(open(f)) for f in glob.glob(sys.argv[1] + "/**/run.json", recursive=True)]
feat = [r for r in runs if r.get("sched_feat") == ["NO_WA_IDLE"]]
assert len(runs) == 6 and len(feat) == 2, [(r.get("label"), r.get("sched_feat")) for r in runs]
print("the variant's 2 jobs booted with NO_WA_IDLE, labelled", sorted({r.get("label") for r in feat}))
PY
echo "lab ab --lava with a variant, 6 jobs: $((SECONDS - t)) s"
echo ok
