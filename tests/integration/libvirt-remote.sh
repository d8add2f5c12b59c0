# libvirt-remote - a libvirt hypervisor reached through qemu+ssh:// (this
# machine's libvirtd through a private sshd: there is no other host):
# kernel and initrd go up as volumes of a storage pool of ours, console and
# records come back through console streams, and nothing of ours stays on
# the hypervisor - after a PASS, a CRASH, a HANG, a host-fault run, a SIGTERM of
# the lab, and a pool left by a killed lab, which the next start sweeps.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-sshd.bash"
command -v virsh >/dev/null || skip "virsh is not installed (libvirt-clients)"
trap 'rc=$?; ssh_stop; libvirtd_down; (exit $rc); keep_on_failure' EXIT
ssh_start
libvirtd_up
U=$SSH_URI
host=$(hostname | cut -c1-64 | tr -c 'A-Za-z0-9.\n-' '_')

# nothing of ours on the hypervisor: no domain, no pool, no directory
clean() {
	local what=$1
	virsh -c "$U" list --all --name </dev/null | grep -q '^schedlab-' &&
		fail "$what: a domain is left: $(virsh -c "$U" list --all --name </dev/null)"
	virsh -c "$U" pool-list --all --name </dev/null | grep -q '^schedlab-' &&
		fail "$what: a pool is left: $(virsh -c "$U" pool-list --all --name </dev/null)"
	ls -d /var/lib/libvirt/images/schedlab-* >/dev/null 2>&1 &&
		fail "$what: a directory is left: $(ls -d /var/lib/libvirt/images/schedlab-*)"
	echo "$what: nothing of ours left on the hypervisor"
}

# 1. the topology through the ssh URI, verified as everywhere else
boot 2s2c,llc=1 --backend libvirt --uri "$U" --accel tcg --timeout 120 </dev/null
expect_pass
[ "$(json "$run/run.json" 'd["libvirt_uri"]')" = "$U" ] || fail "run.json libvirt_uri"
[ "$(json "$run/run.json" 'd["libvirt_transport"]')" = "pool+streams" ] || fail "run.json libvirt_transport"
# the remote path was taken: files are the pool's volumes, serial ports ptys
grep -q "<kernel>/var/lib/libvirt/images/schedlab-[0-9]*-files-$host/kernel</kernel>" "$run/domain.xml" ||
	fail "domain.xml: the kernel is not a volume of our pool: $(grep '<kernel>' "$run/domain.xml")"
grep -q "<initrd>/var/lib/libvirt/images/schedlab-[0-9]*-files-$host/initrd</initrd>" "$run/domain.xml" ||
	fail "domain.xml: the initrd is not a volume of our pool"
[ "$(grep -c "<serial type='pty'>" "$run/domain.xml")" = 2 ] || fail "domain.xml: two pty serial ports"
grep -q "type='unix'\|/\.cache/\|$LAB_RESULTS" "$run/domain.xml" && fail "domain.xml names a local file or socket"
virt-xml-validate "$run/domain.xml" domain >/dev/null || fail "domain.xml does not validate"
# the console came through the stream from the guest's first line on
# (the kernel prints little at loglevel=5; its first line comes before 1 s)
head -n1 "$run/console.log" | grep -q '^\[    0\.' || fail "console.log misses the start of the boot"
grep -q '^schedlab: init start' "$run/console.log" || fail "console.log: no init line"
echo "console through the stream: $(wc -l <"$run/console.log") lines from $(head -c 14 "$run/console.log")"
clean "after a PASS"

# 2. host faults over the remote connection: suspend/resume and an NMI
printf '%s\n' "[scenario]" "name = lv-remote-host" "workload = hackbench" "deadline = 60" "runs = 1" \
	"warmup = 0" "[params]" "groups = 1" "loops = 50" "[metric time]" "better = lower" \
	"[fault freeze]" "kind = pause" "mode = stop" "start = 0.2" "count = 1" "hold = 0.5" \
	"[fault poke]" "kind = nmi" "start = 0.4" "count = 1" >"$TMP/lv-remote.ini"
rc=0
"$LAB" run --topo 1s2c --scenario "$TMP/lv-remote.ini" --backend libvirt --uri "$U" --accel tcg \
	</dev/null >"$TMP/out" 2>"$TMP/err" || rc=$?
cat "$TMP/out"; sed 's/^/stderr: /' "$TMP/err"
run=$(sed -n 's/^results: //p' "$TMP/out")
[ "$rc" -eq 0 ] || fail "lab run with host faults exited $rc"
tests/integration/results.py host-actions "$run/host-faults.jsonl" pause:stop pause:cont nmi:nmi ||
	fail "host-faults.jsonl"
grep -q 'NMI received' "$run/console.log" || fail "the NMI left no trace on the console"
clean "after a run with host faults"

# 3. a panicking guest is a CRASH, its panic read through the stream
boot 1s2c --backend libvirt --uri "$U" --accel tcg --timeout 60 --append lab.mode=crash </dev/null
[ "$rc" -eq 1 ] || fail "crash: exit $rc"
grep -q '^verdict: CRASH: kernel crashed at console line [0-9]*: .*Kernel panic - not syncing' "$TMP/out" ||
	fail "crash: verdict line"
clean "after a CRASH"

# 3b. a guest that never reports is a HANG: registers through the monitor
# passthrough, the NMI's backtraces through the console stream
boot 1s2c --backend libvirt --uri "$U" --accel tcg --timeout 20 --append lab.mode=hang </dev/null
[ "$rc" -eq 1 ] || fail "hang: exit $rc"
grep -q '^verdict: HANG: ' "$TMP/out" || fail "hang: verdict line"
grep -q 'RIP=' "$run/hang-vcpus.txt" || fail "hang: no vCPU registers in hang-vcpus.txt"
grep -q 'NMI' "$run/console.log" || fail "hang: no NMI evidence on the console"
clean "after a HANG"

# 4. SIGTERM to the lab while its guest runs
"$LAB" boot 1s2c --backend libvirt --uri "$U" --accel tcg --timeout 120 --append lab.mode=hang \
	</dev/null >"$TMP/out" 2>"$TMP/err" &
pid=$!
name=schedlab-$pid
for _ in $(seq 120); do
	virsh -c "$U" list --name </dev/null | grep -qx "$name" && break
	sleep 0.5
done
virsh -c "$U" list --name </dev/null | grep -qx "$name" || fail "domain '$name' never appeared"
sleep 2
kill -TERM $pid
wait $pid
for _ in $(seq 20); do
	virsh -c "$U" list --all --name </dev/null | grep -qx "$name" || break
	sleep 0.5
done
clean "after SIGTERM of the lab"

# 5. a pool a killed lab left behind (its pid is gone) goes at the next start
sh -c 'exit 0' & dead=$!
wait $dead
stale=schedlab-$dead-files-$host
virsh -c "$U" pool-define-as "$stale" dir --target "/var/lib/libvirt/images/$stale" </dev/null >/dev/null ||
	fail "cannot define the stale pool"
virsh -c "$U" pool-build "$stale" </dev/null >/dev/null && virsh -c "$U" pool-start "$stale" </dev/null >/dev/null ||
	fail "cannot start the stale pool"
boot 1s1c --backend libvirt --uri "$U" --accel tcg --timeout 120 </dev/null
expect_pass
grep -q "removing storage pool '$stale' of a killed lab" "$TMP/err" || fail "the sweep said nothing"
clean "after the sweep of $stale"
echo ok
