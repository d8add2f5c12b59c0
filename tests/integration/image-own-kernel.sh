#!/bin/bash
# image-own-kernel - a disk image booted with its own kernel and initramfs
# (--kernel image): the test image with Debian's kernel package in it
# (host-tools/mkimage --kernel, cached; the first build runs debootstrap,
# about 2.5 min here) runs the smoke suite on 2s2c.
#
# Checks: the kernel and initramfs are the image's (its /vmlinuz link, the
# console shows initramfs-tools mounting the root and our hook running on
# that kernel's release), run.json says source image, the results have the
# initrd path's form (same files plus the image's, same verdict and case
# fields), the overlay's records agree with the channel, lab compare will
# not pool the run with another kernel's, the user's image is unchanged,
# and the two input errors are one line, exit 2, before anything boots.
. "$(dirname "$0")/lib.sh"
topo=2s2c

t0=$(date +%s)
img=$(host-tools/mkimage --kernel) || fail "cannot build the test image with a kernel"
echo "test image: $img ($(( $(date +%s) - t0 )) s to build or find)"

expect_bad "--kernel image without --image" "$LAB" run --topo $topo --suite smoke --kernel image
grep -q -- "--kernel image boots a disk image's own kernel: give the image with --image" "$TMP/err" ||
	fail "--kernel image without --image: wrong reason"

# The kernel-less image (the small test image) has nothing to boot itself with.
small=$(host-tools/mkimage) || fail "cannot build the small test image"
expect_bad "image without a kernel" "$LAB" run --topo $topo --suite smoke --accel tcg \
	--kernel image --image "$small"
grep -q "cannot boot its own kernel: no kernel found (looked for /vmlinuz, /boot/vmlinuz and /boot/vmlinuz-\*)" \
	"$TMP/err" || fail "image without a kernel: wrong reason"

sum_before=$(sha256sum <"$img")
mtime_before=$(stat -c %Y "$img")

smoke_run "$topo" initrd
initrd_run=$run
t1=$(date +%s)
smoke_run "$topo" own-kernel --kernel image --image "$img"
own_run=$run
echo "own-kernel run: $(( $(date +%s) - t1 )) s for the whole lab run"
grep -q '^image: results agree with the record channel' "$TMP/out" ||
	fail "own kernel: no agreement line"
grep -Eq '^image kernel: /boot/vmlinuz-[^ ]+, initramfs /boot/initrd.img-[^ ]+ \(found by /vmlinuz\)$' \
	"$TMP/out" || fail "own kernel: the setup does not say which kernel of the image boots"

[ "$(sha256sum <"$img")" = "$sum_before" ] || fail "the user's image changed"
[ "$(stat -c %Y "$img")" = "$mtime_before" ] || fail "the user's image was touched"
echo "user image unchanged (sha256 and mtime)"

# The image's initramfs did the mounting, and the hook ran on its kernel.
release=$(json "$own_run/run.json" 'd["kernel"]')
grep -q '^Begin: Mounting root file system' "$own_run/console.log" ||
	fail "the console shows no initramfs-tools mounting the root"
grep -q '^Loading, please wait' "$own_run/console.log" || fail "the image's initramfs did not run"
tr -d '\r' <"$own_run/console.log" | grep -q "^schedlab: image hook on kernel $release$" ||
	fail "the hook did not run on the image's kernel $release"
# the bzImage's version string: header field kernel_version at 0x20e,
# an offset from 0x200 (the x86 boot protocol)
banner=$(python3 -c 'import struct, sys
b = open(sys.argv[1], "rb").read(65536)
assert b[0x202:0x206] == b"HdrS", "not a bzImage"
o = struct.unpack_from("<H", b, 0x20e)[0] + 0x200
print(b[o:b.index(b"\0", o)].decode())' "$own_run/kernel-image") ||
	fail "kernel-image is not a bzImage"
case $banner in
"$release "*) ;;
*) fail "kernel-image is not the $release kernel: $banner" ;;
esac
echo "booted the image's $release with its initramfs (console: initramfs-tools, hook on $release)"

# Same files as the initrd path, plus the overlay, its records and the
# image's kernel, initramfs and config.  A boot that hung under TCG and was
# booted again keeps its evidence in attempt-N/ (docs/results.md): either
# run may have one, so those are left out of the comparison.
files() { ls "$1" | grep -v '^attempt-[0-9]*$' | sort; }
only_initrd=$(comm -23 <(files "$initrd_run") <(files "$own_run"))
extra=$(comm -13 <(files "$initrd_run") <(files "$own_run") | tr '\n' ' ')
[ -z "$only_initrd" ] || fail "missing in the own-kernel run: $only_initrd"
[ "$extra" = "config-image image-records.bin image.qcow2 initrd-image kernel-image " ] ||
	fail "unexpected extra files: $extra"
echo "same files as the initrd path, plus: $extra"

tests/integration/results.py same-shape "$initrd_run" "$own_run" ||
	fail "the own-kernel run's cases.json differs in form from the initrd run's"
python3 - "$initrd_run" "$own_run" <<'PY' || fail "the own-kernel run's results differ in form"
import json, sys
a, b = sys.argv[1], sys.argv[2]
va, vb = json.load(open(a + "/verdict.json")), json.load(open(b + "/verdict.json"))
image_only = {"image_results", "image_records", "image_prepare_s", "image_collect_s", "wall_to_poweroff_s"}
assert set(vb) - set(va) == image_only, sorted(set(vb) ^ set(va))
assert not set(va) - set(vb), sorted(set(va) - set(vb))
assert vb["verdict"] == "PASS" and vb["image_results"] == "agree", vb
assert vb["image_records"] == vb["records"] and vb["records_missing"] == 0, vb
assert open(b + "/records.bin", "rb").read() == open(b + "/image-records.bin", "rb").read()
r = json.load(open(b + "/run.json"))
assert r["kernel_source"] == "image", r["kernel_source"]
k = r["image_kernel"]
assert k["source"] == "image" and k["release"] == r["kernel"], k
assert k["path"] == "/boot/vmlinuz-" + r["kernel"], k
assert k["initrd"] == "/boot/initrd.img-" + r["kernel"], k
assert k["version"].startswith(r["kernel"] + " "), k
assert r["kernel_image"] == b + "/kernel-image" and r["initrd_image"] == b + "/initrd-image", r
assert "init=/schedlab/init" in r["cmdline"] and " rw " in r["cmdline"], r["cmdline"]
assert "root=UUID=" in r["cmdline"] and "lab.root=" not in r["cmdline"], r["cmdline"]
print("run.json: kernel %s from the image's %s (%s), cmdline root=UUID=... rw init=/schedlab/init" %
      (r["kernel"], k["path"], k["found_by"]))
print("%d records agree" % vb["records"])
print("own kernel: overlay+copy-out %.1f s, read-back %.1f s, guest to runner %.1f s, to END %.1f s "
      "(initrd path %.1f s, %.1f s)" % (vb["image_prepare_s"], vb["image_collect_s"],
      vb["wall_to_runner_s"], vb["wall_to_end_s"], va["wall_to_runner_s"], va["wall_to_end_s"]))
PY

# lab compare refuses to pool runs of different kernels (the image's and
# Debian's as the lab fetched it), unless they are the same release.
initrd_release=$(json "$initrd_run/run.json" 'd["kernel"]')
rc=0
"$LAB" compare "$initrd_run+$own_run" "$initrd_run" >"$TMP/cmp" 2>&1 || rc=$?
if [ "$initrd_release" != "$release" ]; then
	[ "$rc" -eq 2 ] && grep -q "cannot pool runs of different kernels" "$TMP/cmp" ||
		fail "lab compare pooled $initrd_release with $release (exit $rc): $(cat "$TMP/cmp")"
	echo "lab compare: $(cat "$TMP/cmp")"
else
	echo "lab compare: both kernels are $release (the same Debian package): pooling allowed"
fi
echo ok
