#!/bin/bash
# matrix-uris - lab matrix spread over two libvirt URIs, qemu:///system and
# qemu+ssh:// to this machine (through a private sshd), plus a third URI
# nothing answers on: it is reported once and gets no job.  2 kernels x 2
# topologies x 1 tiny suite, one guest at a time in all (--max-jobs 1; the
# host has two cores), killed (SIGKILL) after two jobs, resumed from the
# directory alone, every job PASS on one of the live URIs, both URIs used,
# and lab compare reads the results.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-sshd.bash"
command -v virsh >/dev/null || skip "virsh is not installed (libvirt-clients)"
trap 'rc=$?; ssh_stop; libvirtd_down; (exit $rc); keep_on_failure' EXIT
ssh_start
libvirtd_up
LOCAL=qemu:///system
# an ssh URI whose port nothing listens on: fails at once
dead_uri() { echo "qemu+ssh://root@127.0.0.1:$(free_port)/system?keyfile=$TMP/ssh/id&no_verify=1&no_tty=1"; }
DEAD=$(dead_uri)

k2=
for d in "${LAB_CACHE:-.cache}"/kernels/built/*/; do
	[ -f "$d/bzImage" ] && k2=$(basename "$d") && break
done
k2=${k2:+lab-base=$k2}
k2=${k2:-again=debian}
kernels="debian,$k2"
m=$TMP/matrix
MX=(--kernels "$kernels" --topos 1s2c,2s1c --suites ab-tiny --backend libvirt)

echo "no URI reachable: one line, exit 1, nothing written"
rc=0
"$LAB" matrix "${MX[@]}" --uri "$DEAD" --uri "$(dead_uri)" --dir "$TMP/bad" </dev/null \
	>"$TMP/out" 2>"$TMP/err" || rc=$?
[ "$rc" -eq 1 ] || fail "a matrix with no reachable URI exited $rc: $(cat "$TMP/err")"
[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "more than one line: $(cat "$TMP/err")"
grep -q 'none of the 2 libvirt URIs can be reached' "$TMP/err" || fail "$(cat "$TMP/err")"
[ ! -e "$TMP/bad" ] || fail "it created its directory"
echo "  -> $(cat "$TMP/err")"
rc=0
"$LAB" matrix "${MX[@]}" --uri $LOCAL --uri $LOCAL --dir "$TMP/bad" </dev/null >"$TMP/out" 2>"$TMP/err" || rc=$?
[ "$rc" -eq 2 ] && [ ! -e "$TMP/bad" ] || fail "a URI given twice: exit $rc, $(cat "$TMP/err")"
echo "  a URI given twice -> $(cat "$TMP/err")"

echo "lab matrix over $LOCAL, the ssh URI and a dead one (killed after two jobs)"
"$LAB" matrix "${MX[@]}" --uri $LOCAL --uri "$SSH_URI" --uri "$DEAD" --jobs 1 --max-jobs 1 \
	--dir "$m" </dev/null >"$TMP/out1" 2>"$TMP/err1" &
matrix_kill_after "$m" 2 $! "$TMP/out1" "$TMP/err1"
[ "$(grep -c "cannot use $DEAD" "$TMP/err1")" = 1 ] || fail "the dead URI was not reported exactly once"
grep -q 'at a time on each of 3 URIs (at most 1 in all)' "$TMP/out1" || fail "no plan line"
for u in $LOCAL "$SSH_URI"; do
	for _ in $(seq 20); do
		virsh -c "$u" list --name </dev/null | grep -q '^schedlab-' || break
		sleep 0.5
	done
	virsh -c "$u" list --name </dev/null | grep -q '^schedlab-' && fail "a domain of the killed matrix runs on $u"
done
python3 - "$m/matrix.json" "$LOCAL" "$SSH_URI" <<'PY' || fail "matrix.json after the kill"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["uris"][:2] == sys.argv[2:4], d["uris"]
done = [j for j in d["jobs"] if j["state"] == "done"]
print("done before the kill:", [(j["id"], j["verdict"], j["uri"][:14]) for j in done])
# one guest at a time, the least used live URI first: one job on each
assert sorted(j["uri"] for j in done) == sorted(sys.argv[2:4]), [j["uri"] for j in done]
PY
running=$(json "$m/matrix.json" '" ".join(j["id"] for j in d["jobs"] if j["state"] == "running")')
echo "killed; running then: ${running:-none}"

echo "lab matrix --dir $m --max-jobs 1 (resume)"
rc=0
"$LAB" matrix --dir "$m" --max-jobs 1 </dev/null >"$TMP/out2" 2>"$TMP/err2" || rc=$?
cat "$TMP/out2"
sed 's/^/stderr: /' "$TMP/err2"
[ "$rc" -eq 0 ] || fail "the resumed matrix exited $rc"
grep -q '^matrix: resuming: 2 of 4 jobs were done before' "$TMP/err2" || fail "no resume message"
grep -q '(2 running' "$TMP/err2" && fail "the resumed matrix ran two guests at once"
[ "$(grep -c "cannot use $DEAD" "$TMP/err2")" = 1 ] || fail "the resumed matrix did not report the dead URI once"
for id in $running; do
	ls -d "$m/aside/$id-attempt-1" >/dev/null 2>&1 || fail "the cut-short job $id was not set aside"
	echo "  $id: the killed attempt is in aside/, rerun"
done
python3 - "$m/matrix.json" "$LOCAL" "$SSH_URI" <<'PY' || fail "matrix.json after the resume"
import json, sys
d = json.load(open(sys.argv[1]))
live = set(sys.argv[2:4])
for j in d["jobs"]:
    print("  %-36s %-5s attempts %d on %s" % (j["id"], j["verdict"], j["attempts"], j["uri"][:40]))
    assert j["state"] == "done" and j["verdict"] == "PASS", j
    assert j["uri"] in live, j["uri"]
    rj = json.load(open(j["run"] + "/run.json"))
    assert rj["backend"] == "libvirt" and rj["libvirt_uri"] == j["uri"], rj.get("libvirt_uri")
assert {j["uri"] for j in d["jobs"]} == live, "both URIs ran jobs"
PY
grep -q " on qemu+ssh://" "$TMP/out2" || fail "the summary does not say where jobs ran"

matrix_compare_1s2c "$TMP/out2"
echo "PASS: matrix over two URIs (and a dead one), killed, resumed, compared"

echo "a URI that stops answering mid-matrix: its job goes to the other URI"
m2=$TMP/matrix2
"$LAB" matrix --kernels debian --topos 1s2c,2s1c --suites ab-tiny --backend libvirt \
	--uri $LOCAL --uri "$SSH_URI" --max-jobs 1 --dir "$m2" </dev/null >"$TMP/out3" 2>"$TMP/err3" &
pid=$!
for _ in $(seq 240); do
	grep -q 'started on qemu:///system' "$TMP/err3" && break
	kill -0 $pid 2>/dev/null || break
	sleep 0.5
done
grep -q 'started on qemu:///system' "$TMP/err3" || { kill $pid; fail "the first job never started"; }
ssh_stop
rc=0
wait $pid || rc=$?
cat "$TMP/out3"; sed 's/^/stderr: /' "$TMP/err3"
[ "$rc" -eq 0 ] || fail "the matrix whose ssh URI died exited $rc"
grep -q "stopped answering" "$TMP/err3" || fail "the lost URI was not reported"
grep -q "lost its hypervisor; its remains are in" "$TMP/err3" || fail "the lost job was not set aside"
python3 - "$m2/matrix.json" "$LOCAL" <<'PY' || fail "matrix.json: lost job"
import json, sys
d = json.load(open(sys.argv[1]))
for j in d["jobs"]:
    print("  %-28s %-5s attempts %d on %s" % (j["id"], j["verdict"], j["attempts"], j["uri"][:40]))
    assert j["verdict"] == "PASS" and j["uri"] == sys.argv[2], j
assert max(j["attempts"] for j in d["jobs"]) == 2, "no job was rerun"
PY
echo "PASS: a job on the lost URI was rerun on the other"
