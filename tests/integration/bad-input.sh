# bad-input - every bad spec, option or kernel path: exactly one line on
# stderr, exit 2, nothing on stdout and nothing under results/.
. "$(dirname "$0")/lib.sh"
check_bad() {
	local rc=0
	"$LAB" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null || rc=$?
	[ "$rc" -eq 2 ] || fail "'$*' exited $rc, expected 2"
	[ "$(wc -l <"$TMP/err")" -eq 1 ] || { cat "$TMP/err"; fail "'$*' printed not exactly one stderr line"; }
	[ ! -s "$TMP/out" ] || fail "'$*' printed on stdout"
	[ ! -e "$LAB_RESULTS" ] || fail "'$*' created $LAB_RESULTS"
	echo "ok: $* -> $(cat "$TMP/err")"
}
long=$(printf '2s64c,llc=8%0300d' 0)
for spec in 0s4c 2s0c 2s4c0t 2s64c,llc=7 2s64c,nps=3 2s8c,llc=8,nps=2 2s4c,bogus=1 2s4c,llc= \
	'2s4c;reboot' '2s4c$(id)' '2s4c,mem=99999999G' 2s4c,mem=1.5G "$long" '' 2s4c,llc=2,llc=2 \
	2s4c,dist=5 2s4c,dist=10:20:20 no-such-preset; do
	check_bad boot "$spec"
	check_bad topo "$spec"
done
check_bad boot 2s200c --accel tcg
check_bad boot 1s4c --kernel /nonexistent/bzImage
check_bad boot 1s4c --kernel /etc/passwd
check_bad boot 1s4c --accel warp
# KVM asked for where it cannot run a guest (no /dev/kvm, or one whose vCPU
# QEMU cannot create): one line, however long QEMU takes to fail
if ! "$LAB" boot 1s2c --accel kvm >/dev/null 2>"$TMP/kvm" </dev/null &&
   grep -q 'KVM is not usable' "$TMP/kvm"; then
	rm -rf "$LAB_RESULTS"
	check_bad boot 1s2c --accel kvm
else
	echo "skip: --accel kvm refusal (KVM works here)"
fi
check_bad boot 1s4c --no-such-option
check_bad boot
# the other commands' option errors: one line too, never the whole usage
check_bad kernel --no-such-option
check_bad kernel build --ksrc
check_bad kernel build --no-such-option
check_bad scenarios --no-such-option
check_bad scenarios --plan
check_bad initrd --no-such-option
check_bad initrd --out
check_bad report --no-such-option
check_bad compare --no-such-option
check_bad ab --no-such-option
check_bad matrix --no-such-option
check_bad run --topo 1s2c --resume "$TMP" --trace
# a resumed matrix boots as it began: another clock or start is refused
mkdir -p "$TMP/mx"
cat >"$TMP/mx/matrix.json" <<'EOF'
{"version":1,"kernels":["debian"],"topos":["1s2c"],"suites":["smoke"],"uris":[],"clock":"wall","warm":true,
 "jobs":[{"id":"001-debian-1s2c-smoke","kernel":"debian","label":"","topo":"1s2c","suite":"smoke",
 "state":"done","verdict":"PASS","run":"","seconds":1,"attempts":1,"uri":""}]}
EOF
check_bad matrix --dir "$TMP/mx" --clock virtual
check_bad matrix --dir "$TMP/mx" --cold
check_bad matrix --dir "$TMP/mx" --warm --cold
# libvirt's save image is written on the hypervisor's host: local URIs only
check_bad run --topo 1s2c --suite smoke --backend libvirt --uri 'qemu+ssh://nohost.invalid/system' --warm
# the warm restore's plan nudge: a host-ms count, checked before anything starts
LAB_PLAN_NUDGE_MS=soon check_bad run --topo 1s2c --suite smoke --warm
LIBVIRT_REMOTE=1 check_bad run --topo 1s2c --suite smoke --backend libvirt --warm
check_bad bare --no-such-option
# sched_ext: an unknown scheduler, one not static, a kernel without it,
# and lab scx's own option errors
check_bad run --topo 1s2c --suite smoke --scx eevdf
check_bad run --topo 1s2c --suite smoke --scx /nonexistent/scx_mine
check_bad run --topo 1s2c --suite smoke --scx 'simple' --warm
check_bad run --topo 1s2c --suite smoke --scx simple   # Debian 12's 6.1: no CONFIG_SCHED_CLASS_EXT
check_bad run --topo 1s2c --suite scx-eject            # the same, from the scenarios' scheduler key
check_bad ab --base debian --test debian --suite smoke --variant scx=eevdf
check_bad scx
check_bad scx build --kernel debian              # 6.1: no sched_ext
check_bad scx --no-such-option
printf '[scenario]\nname = s\nworkload = exec\nscheduler = scx_nope\n' >"$TMP/badscx.ini"
check_bad scenarios --plan "$TMP/badscx.ini"
# guests at a time, seeds and LAVA
check_bad ab --topo 1s2c --base debian --test debian --suite smoke --jobs 0
check_bad ab --topo 1s2c --base debian --test debian --suite smoke --jobs 17
check_bad run --topo 1s2c --suite smoke --clock wall --seed 3
# workload parameters: form, scenario, key and value as the runner checks them
check_bad run --topo 1s2c --suite smoke --param work
check_bad run --topo 1s2c --suite smoke --param nosuch:work=1
check_bad run --topo 1s2c --suite smoke --param smoke-hackbench:nosuch=1
check_bad run --topo 1s2c --suite smoke --param smoke-hackbench:work=x
check_bad run --topo 1s2c --suite smoke --param work=1
check_bad ab --topo 1s2c --base debian --test debian --suite smoke --test-param smoke-hackbench:work=1 --lava http://127.0.0.1:9
check_bad ab --topo 1s2c --base debian --test debian --suite smoke --lava http://127.0.0.1:9 --variant scx=scx_simple
check_bad matrix --kernels debian --topos 1s2c --suites smoke --lava http://127.0.0.1:9 --variant scx=scx_simple
check_bad ab --topo 1s2c --base debian --test debian --suite smoke --lava-publish /tmp
check_bad matrix --kernels debian --topos 1s2c --suites smoke --lava http://127.0.0.1:9 --lava-artifacts ftp://x --lava-publish /tmp
check_bad ab --topo 1s2c --base debian --test debian --suite smoke --lava http://127.0.0.1:9 --lava-artifacts http://x --lava-publish /nonexist
check_bad ab --topo 1s2c --base debian --test debian --suite smoke --lava http://127.0.0.1:9 --lava-artifacts http://x
check_bad lava export --topo 1s2c --suite smoke --artifacts file:///x --out "$TMP/lx1" --smt off
check_bad lava export --topo 1s2c2t --suite smoke --artifacts file:///x --out "$TMP/lx2" --smt maybe
check_bad lava export --topo 1s2c --suite smoke --artifacts file:///x --out "$TMP/lx3" --sched-feat 'NO_'
check_bad lava export --topo 1s2c --suite smoke --artifacts file:///x --out "$TMP/lx4" --sched-feat NO_NOSUCHFEAT
check_bad lava export --topo 1s2c --suite smoke --artifacts file:///x --out "$TMP/lx5" --sched-knob base_slice_ns=1
check_bad lava export --topo 1s2c --suite smoke --artifacts file:///x --out "$TMP/lx6" --preempt sometimes
check_bad lava export --topo 1s2c --suite smoke --artifacts file:///x --out "$TMP/lx7" --append 'lab.sched_feat=NO_X'
check_bad matrix --kernels debian --topos 1s2c --suites smoke --lava ftp://x
check_bad matrix --kernels debian --topos 1s2c --suites smoke --lava http://127.0.0.1:9 --device-type foo
check_bad matrix --kernels debian --topos 1s2c --suites smoke --lava http://127.0.0.1:9 --device-type x86
check_bad ab --topo 1s2c --base debian --test debian --suite smoke --lava http://127.0.0.1:9 --device-type foo
check_bad ab --topo 1s2c --base debian --test debian --suite smoke --lava http://127.0.0.1:9 --device-type x86
check_bad ab --topo 1s2c --base debian --test debian --suite smoke --device-type qemu
check_bad lava
check_bad lava submit --server http://127.0.0.1:9 /nonexistent/job.json
check_bad lava follow --server http://127.0.0.1:9 --out "$TMP/f" 12
check_bad lava follow --server http://127.0.0.1:9 --out "$TMP/f" twelve
check_bad lava run --server gopher://x --artifacts file:///x --dir "$TMP/lr" --topo 1s2c --suite smoke
echo ok
