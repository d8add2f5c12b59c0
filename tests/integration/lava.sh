# lava - a real LAVA 2023.01 on this host (host-tools/lava/lava-local): up,
# one job on qemu-01 that boots the lab's kernel and initrd on 1s2c (2 vCPUs,
# the lab's own QEMU topology arguments) under TCG, its state, health, console
# lines and monitor result through the REST API, then down and no LAVA or
# PostgreSQL process left.  Slow lane: 51-95 s with the packages installed
# (up 21-67 s, the job 12-66 s, down 8-14 s: all with the host's load),
# about 6 min from scratch (up with apt-get update and install: 307 s).
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
farm_down() {
	local rc=$?
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

# the lab's kernel and initrd, as file:// URLs the worker reads
kernel=$("$LAB" kernel debian --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["bzimage"])') ||
	fail "lab kernel debian"
mkdir -p "$TMP/lava"
chmod 755 "$TMP"
cp "$kernel" "$TMP/lava/vmlinuz"
"$LAB" initrd --out "$TMP/lava/initrd.cpio" >/dev/null || fail "lab initrd"
"$LAB" topo --qemu "$TOPO" >"$TMP/lava/qemu-args" || fail "lab topo --qemu $TOPO"

# The job: the lab's QEMU arguments for the topology (-m becomes the
# device's memory), the console on ttyS0 and the record channel (ttyS1)
# to nothing; the monitor turns "schedlab: runner exit N" into a result.
python3 - "$TMP/lava" "$TOPO" >"$TMP/lava/job.yaml" <<'EOF'
import sys, yaml
d, topo = sys.argv[1], sys.argv[2]
args = open(d + "/qemu-args").read().split("\n")[1:]
args = [a for a in args if a]
opts, mem = [], "512"
for k, v in zip(args[0::2], args[1::2]):
    if k == "-m":
        mem = v
    else:
        opts.append(f"{k} {v}")
opts += ["-serial stdio", "-serial null"]
job = {
    "device_type": "qemu",
    "job_name": f"schedlab {topo} probe",
    "priority": "medium",
    "visibility": "public",
    "timeouts": {"job": {"minutes": 8}, "action": {"minutes": 5},
                 "connection": {"minutes": 2}},
    "context": {"arch": "amd64", "no_kvm": True, "memory": mem,
                "extra_options": opts},
    "actions": [
        {"deploy": {"to": "tmpfs", "timeout": {"minutes": 2}, "images": {
            "kernel": {"image_arg": '-kernel {kernel} -append "console=ttyS0 loglevel=5 panic=-1 lab.mode=probe"',
                       "url": f"file://{d}/vmlinuz"},
            "ramdisk": {"image_arg": "-initrd {ramdisk}",
                        "url": f"file://{d}/initrd.cpio"}}}},
        {"boot": {"method": "qemu", "media": "tmpfs", "timeout": {"minutes": 3}}},
        {"test": {"timeout": {"minutes": 4}, "monitors": [{
            "name": "schedlab",
            "start": "schedlab: init start",
            "end": "reboot: Power down",
            "pattern": r"schedlab: (?P<test_case_id>runner) exit (?P<result>\d+)",
            "fixupdict": {"0": "pass", "1": "fail", "2": "fail"}}]}},
    ],
}
print(yaml.safe_dump(job, sort_keys=False))
EOF
cat "$TMP/lava/job.yaml"

api() { curl -sf -H "Authorization: Token $tok" "$URL/$1"; }
jget() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1], {"d": d}))' "$1"; }

t1=$SECONDS
python3 -c 'import json,sys; print(json.dumps({"definition": open(sys.argv[1]).read()}))' "$TMP/lava/job.yaml" >"$TMP/lava/body.json"
code=$(curl -s -o "$TMP/lava/submit.json" -w '%{http_code}' -H "Authorization: Token $tok" \
	-H 'Content-Type: application/json' -X POST --data @"$TMP/lava/body.json" "$URL/jobs/")
[ "$code" = 201 ] || fail "submit: HTTP $code: $(cat "$TMP/lava/submit.json")"
id=$(jget 'd["job_ids"][0]' <"$TMP/lava/submit.json")
echo "job $id submitted"

state=
for _ in $(seq 300); do
	state=$(api "jobs/$id/" | jget 'd["state"] + " " + d["health"]') || state=
	case $state in Finished*) break ;; esac
	sleep 1
done
echo "job $id: $state after $((SECONDS - t1)) s"
api "jobs/$id/logs/" >"$TMP/lava/log.yaml" || fail "no log for job $id"
[ "$state" = "Finished Complete" ] || {
	grep -E '"lvl": "(error|exception)"|"case": "job"' "$TMP/lava/log.yaml" >&2
	fail "job $id: '$state', expected 'Finished Complete'"
}

# the console: the log's "target" lines
grep '"lvl": "target"' "$TMP/lava/log.yaml" | grep -q '"msg": "schedlab: init start"' ||
	fail "console: no 'schedlab: init start'"
grep '"lvl": "target"' "$TMP/lava/log.yaml" | grep -q '"msg": "schedlab: runner exit 0"' ||
	fail "console: no 'schedlab: runner exit 0'"
grep -q -- '-smp 2,sockets=1,dies=1,cores=2,threads=1' "$TMP/lava/log.yaml" ||
	fail "the boot command lacks the topology's -smp"
grep -q -- '-enable-kvm' "$TMP/lava/log.yaml" && fail "the boot command has -enable-kvm"
res=$(api "jobs/$id/tests/?suite__name=schedlab" | jget '" ".join(r["name"] + "=" + r["result"] for r in d["results"])')
[ "$res" = "runner=pass" ] || fail "schedlab suite: '$res', expected runner=pass"
echo "console and results: ok"
echo ok
