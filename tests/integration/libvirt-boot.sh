# libvirt-boot - the libvirt backend boots an SMT + NUMA topology (with a
# non-default distance) and passes the same verification as the QEMU
# backend; its XML is kept and valid; pause/resume and an NMI go through
# libvirt; CRASH and HANG are verdicts; a lab killed by SIGTERM leaves no
# domain; libvirtd and virtlogd are started by the lab when not running;
# --warm saves through libvirt's own save and restores with the saved XML
# rewritten (a killed restore's domain is swept, a corrupted snapshot boots
# cold).
. "$(dirname "$0")/lib.sh"
URI=qemu:///system
command -v libvirtd >/dev/null || skip "libvirtd is not installed (libvirt-daemon-system)"
command -v virsh >/dev/null || skip "virsh is not installed (libvirt-clients)"

alive() { python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])' "$1" 2>/dev/null; }
had_libvirtd=0; alive /run/libvirt/libvirt-sock && had_libvirtd=1
had_virtlogd=0; alive /run/libvirt/virtlogd-sock && had_virtlogd=1
# Daemons this test made the lab start are stopped again (by their pid
# files), once no domain is left; daemons that were running stay.
stop_daemons() {
	local n
	[ "$had_libvirtd$had_virtlogd" = 11 ] && return
	n=$(virsh -c $URI list --name 2>/dev/null | grep -c . || true)
	[ "${n:-0}" -eq 0 ] || { echo "libvirt runs other domains: daemons left running" >&2; return; }
	[ $had_libvirtd = 0 ] && [ -s /run/libvirtd.pid ] && kill "$(cat /run/libvirtd.pid)"
	[ $had_virtlogd = 0 ] && [ -s /run/virtlogd.pid ] && kill "$(cat /run/virtlogd.pid)"
	return 0
}
trap 'stop_daemons; keep_on_failure' EXIT
[ $had_libvirtd = 1 ] && echo "libvirtd already running" || echo "libvirtd not running: the lab starts it"

running() { virsh -c $URI list --name | grep -qx "$1"; }
# waits up to $2 half-seconds for domain $1 to run
appears() {
	for _ in $(seq "$2"); do
		running "$1" && return 0
		sleep 0.5
	done
	running "$1"
}
domain_of() { sed -n 's:.*<name>\(.*\)</name>.*:\1:p' "$1/domain.xml"; }
gone() {
	local name=$1
	virsh -c $URI list --all --name | grep -qx "$name" && fail "domain '$name' still exists"
	ls "${LAB_CACHE:-.cache}"/tmp/lv-"$name"-* >/dev/null 2>&1 && fail "private directory of '$name' left behind"
	echo "domain $name: gone"
}

# 1. topology through libvirt, same verification as the QEMU backend
boot 2s2c2t,llc=1,dist=30 --backend libvirt --accel tcg
if [ "$rc" -ne 0 ] && grep -q 'cannot start libvirtd' "$TMP/err"; then
	skip "libvirtd cannot start here: $(grep -m1 'cannot start' "$TMP/err")"
fi
expect_pass
alive /run/libvirt/libvirt-sock || fail "libvirtd is not running after the boot"
[ "$(json "$run/run.json" 'd["backend"]')" = libvirt ] || fail "run.json backend"
[ "$(json "$run/run.json" 'd["libvirt_uri"]')" = $URI ] || fail "run.json libvirt_uri"
[ "$(json "$run/run.json" 'd["libvirt_transport"]')" = "local sockets" ] || fail "run.json libvirt_transport"
virt-xml-validate "$run/domain.xml" domain || fail "domain.xml does not validate"
grep -q "<topology sockets='2' dies='2' cores='1' threads='2'/>" "$run/domain.xml" || fail "domain.xml topology"
grep -q "<sibling id='1' value='30'/>" "$run/domain.xml" || fail "domain.xml distances"
grep -q "<seclabel type='none' model='dac'/>" "$run/domain.xml" || fail "domain.xml seclabel"
[ "$(json "$run/guest-topology.json" 'd["distances"][0][1]')" = 30 ] ||
	fail "guest distance is not 30: $(json "$run/guest-topology.json" 'd["distances"]')"
grep -q 'libvirt' "$run/verdict.json" || fail "verdict.json hypervisor does not name libvirt"
grep -q 'qemu-system-x86_64' "$run/qemu.log" || fail "qemu.log (libvirt's QEMU log) not kept"
gone "$(domain_of "$run")"

# 2. host faults through libvirt: suspend/resume and NMI
printf '%s\n' "[scenario]" "name = lv-host" "workload = hackbench" "deadline = 60" "runs = 1" \
	"warmup = 0" "[params]" "groups = 1" "loops = 50" "[metric time]" "better = lower" \
	"[fault freeze]" "kind = pause" "mode = stop" "start = 0.2" "count = 1" "hold = 0.5" \
	"[fault poke]" "kind = nmi" "start = 0.4" "count = 1" >"$TMP/lv-host.ini"
rc=0
"$LAB" run --topo 1s2c --scenario "$TMP/lv-host.ini" --backend libvirt --accel tcg \
	>"$TMP/out" 2>"$TMP/err" || rc=$?
cat "$TMP/out"; sed 's/^/stderr: /' "$TMP/err"
run=$(sed -n 's/^results: //p' "$TMP/out")
[ "$rc" -eq 0 ] || fail "lab run with host faults exited $rc"
tests/integration/results.py host-actions "$run/host-faults.jsonl" pause:stop pause:cont nmi:nmi ||
	fail "host-faults.jsonl"
grep -q 'NMI received' "$run/console.log" || fail "the NMI left no trace on the console"
gone "$(domain_of "$run")"

# 3. SIGTERM to the lab mid-run: libvirtd destroys the AUTODESTROY domain
"$LAB" boot 1s2c --backend libvirt --accel tcg --timeout 120 --append lab.mode=hang \
	>"$TMP/out" 2>"$TMP/err" &
pid=$!
name=schedlab-$pid
appears "$name" 60 || fail "domain '$name' never appeared"
kill -TERM $pid
wait $pid
for _ in $(seq 20); do
	virsh -c $URI list --all --name | grep -qx "$name" || break
	sleep 0.5
done
virsh -c $URI list --all --name | grep -qx "$name" && fail "SIGTERM left domain '$name' running"
echo "domain $name: gone after SIGTERM"
ls -d "${LAB_CACHE:-.cache}"/tmp/lv-"$name"-* >/dev/null 2>&1 ||
	fail "a lab killed by SIGTERM removed its directory: the sweep below checks nothing"
killed=$name

# 4. a panicking guest is a CRASH through libvirt too
boot 1s2c --backend libvirt --accel tcg --timeout 60 --append lab.mode=crash
[ "$rc" -eq 1 ] || fail "crash: exit $rc"
grep -q '^verdict: CRASH: kernel crashed at console line [0-9]*: .*Kernel panic - not syncing' "$TMP/out" ||
	fail "crash: verdict line"
gone "$(domain_of "$run")"

# the killed lab could not remove its private directory: the next run did
ls "${LAB_CACHE:-.cache}"/tmp/lv-"$killed"-* >/dev/null 2>&1 &&
	fail "the private directory of the killed lab was not swept"
echo "private directory of $killed: swept by the next run"

# 5. a guest that never reports is a HANG: registers through the monitor
# passthrough (HMP), backtraces through virDomainInjectNMI
boot 1s2c --backend libvirt --accel tcg --timeout 25 --append lab.mode=hang
[ "$rc" -eq 1 ] || fail "hang: exit $rc"
grep -q '^verdict: HANG: ' "$TMP/out" || fail "hang: verdict line"
grep -q 'RIP=' "$run/hang-vcpus.txt" || fail "hang: no vCPU registers in hang-vcpus.txt"
grep -q 'NMI' "$run/console.log" || fail "hang: no NMI evidence on the console"
gone "$(domain_of "$run")"

# 6. warm start through virDomainSaveFlags / virDomainRestoreFlags, with a
# private snapshot cache (kernels and initrds from the shared one) that
# libvirt's QEMU can enter
shared=$(realpath "${LAB_CACHE:-.cache}")
chmod 711 "$TMP"
mkdir -p "$TMP/lvcache"
ln -s "$shared/kernels" "$TMP/lvcache/kernels"
ln -s "$shared/initrd" "$TMP/lvcache/initrd"
warm_run() {
	local label=$1 rc=0
	LAB_CACHE=$TMP/lvcache "$LAB" run --topo 1s2c --scenario scenarios/smoke-exec.ini --backend libvirt \
		--accel tcg --warm >"$TMP/out" 2>"$TMP/err" || rc=$?
	sed "s/^/$label: /" "$TMP/out"
	sed "s/^/$label stderr: /" "$TMP/err"
	[ "$rc" -eq 0 ] || fail "$label: lab run --backend libvirt --warm exited $rc"
	run=$(sed -n 's/^results: //p' "$TMP/out")
	[ -s "$run/cases.json" ] || fail "$label: no results"
	start=$(json "$run/run.json" 'd["start"]')
}
warm_run lv-save
[ "$start" = cold ] || fail "first warm run did not boot"
key=$(json "$run/run.json" 'd["snapshot"]')
snap=$TMP/lvcache/snapshots/$key
[ -s "$snap/state.zst" ] && [ -s "$snap/saved.xml" ] && [ -s "$snap/prefix.bin" ] ||
	fail "no libvirt snapshot in $snap"
[ "$(json "$snap/meta.json" 'd["backend"]')" = libvirt ] || fail "meta.json backend"
[ ! -e "$snap/libvirt.save" ] || fail "libvirt's raw image left beside state.zst"
gone "$(domain_of "$run")"
LAB_CACHE=$TMP/lvcache "$LAB" cache | grep -q "snapshot.*$key" || fail "lab cache does not list the libvirt snapshot"

warm_run lv-restore
[ "$start" = warm ] || fail "second run was not restored"
[ "$(json "$run/verdict.json" 'd["start"]')" = warm ] || fail "verdict.json does not say warm"
grep -q "lab:run xmlns:lab=" "$run/domain.xml" || fail "restored domain.xml has no owner metadata"
grep -q "$TMP/lvcache/tmp/lv-" "$run/domain.xml" || fail "restored domain.xml keeps the saver's paths"
gone "$(domain_of "$run")"

# a restored domain is not AUTODESTROY: a lab killed by SIGKILL leaves it,
# and the next lab destroys it (its owner is gone) before restoring again
printf '%s\n' "[scenario]" "name = lv-hold" "workload = exec" "deadline = 90" "runs = 1" "warmup = 0" \
	"[params]" "cmd = /bin/busybox sleep 60" "[metric elapsed]" "better = lower" >"$TMP/lv-hold.ini"
LAB_CACHE=$TMP/lvcache "$LAB" run --topo 1s2c --scenario "$TMP/lv-hold.ini" --backend libvirt \
	--accel tcg --warm >"$TMP/out" 2>"$TMP/err" &
pid=$!
name=$(sed -n 's:.*<name>\(.*\)</name>.*:\1:p' "$snap/saved.xml")
appears "$name" 120 || fail "restored domain '$name' never appeared"
# a domain is listed while its stream still loads (paused); killed then,
# the lab's zstd ends the stream and libvirtd ends the domain: wait for
# the restore to have finished
for _ in $(seq 120); do
	[ "$(virsh -c $URI domstate "$name" 2>/dev/null)" = running ] && break
	sleep 0.5
done
[ "$(virsh -c $URI domstate "$name" 2>/dev/null)" = running ] || fail "restored domain '$name' never ran"
kill -KILL $pid
wait $pid || true
running "$name" || fail "test premise: SIGKILL ended the restored domain"
warm_run lv-orphan
[ "$start" = warm ] || fail "the run after a killed restore was not restored"
gone "$name"
ls -d "$TMP/lvcache/tmp/warm-$pid-"* >/dev/null 2>&1 && fail "the killed restore's FIFO directory was not swept"

# a snapshot libvirt cannot load (its stream damaged, size intact) is
# deleted with one line and the run boots cold (and saves a new one)
dd if=/dev/zero of="$snap/state.zst" bs=1 count=4096 seek=65536 conv=notrunc status=none
warm_run lv-corrupt
[ "$start" = cold ] || fail "a damaged snapshot was restored"
grep -q "^start: snapshot ${key:0:12} did not restore (.*); deleted, booting cold$" "$TMP/out" ||
	fail "no fallback line"
[ "$(json "$run/verdict.json" 'd["verdict"]')" = PASS ] || fail "the cold fallback did not pass"
gone "$(domain_of "$run")"

echo ok
