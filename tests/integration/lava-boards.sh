# lava-boards - lab lava export for the U-Boot boards, without a LAVA or
# a board: each job's directory holds Debian's arm64 Image, the board's
# device tree exactly as the kernel's package ships it, and the initrd in
# a U-Boot ramdisk header that U-Boot's own dumpimage reads back (and
# unwraps to the very cpio); a kernel without the board's tree is one
# line, exit 2, nothing written.  LAVA's own validation of these jobs is
# in lava.sh (slow lane).
. "$(dirname "$0")/lib.sh"
command -v dumpimage >/dev/null || skip "no dumpimage (u-boot-tools: host-tools/install-deps lab)"
"$LAB" kernel debian --arch arm64 --json >"$TMP/kernel.json" 2>"$TMP/kerr" ||
	{ cat "$TMP/kerr"; fail "lab kernel debian --arch arm64"; }
dtbs=$(json "$TMP/kernel.json" 'd["dtbs"]')
image=$(json "$TMP/kernel.json" 'd["bzimage"]')
[ -d "$dtbs" ] || fail "the arm64 kernel's cache entry keeps no device trees ($dtbs)"
for b in broadcom/bcm2711-rpi-4-b rockchip/rk3399-rock-pi-4b amlogic/meson-g12b-a311d-khadas-vim3; do
	dt=${b#*/}
	out=$TMP/$dt
	"$LAB" lava export --device-type "$dt" --suite smoke --artifacts "http://files.example/$dt/" \
		--out "$out" >/dev/null 2>"$TMP/err" || { cat "$TMP/err"; fail "lab lava export --device-type $dt"; }
	want=$(printf '%s\n' Image "$dt.dtb" initrd.uimg job.json plan.txt | LC_ALL=C sort | tr '\n' ' ')
	[ "$(cd "$out" && LC_ALL=C ls | tr '\n' ' ')" = "$want" ] ||
		fail "$dt: the job's directory holds $(ls "$out" | tr '\n' ' ')"
	cmp -s "$dtbs/$b.dtb" "$out/$dt.dtb" || fail "$dt: the device tree is not the package's $b.dtb"
	cmp -s "$image" "$out/Image" || fail "$dt: the Image is not the package's"
	dumpimage -l "$out/initrd.uimg" >"$TMP/hdr" || fail "$dt: dumpimage cannot read initrd.uimg"
	grep -q 'Image Type: *AArch64 Linux RAMDisk Image (uncompressed)' "$TMP/hdr" ||
		{ cat "$TMP/hdr"; fail "$dt: initrd.uimg is not an arm64 ramdisk image"; }
	dumpimage -T ramdisk -p 0 -o "$TMP/payload" "$out/initrd.uimg" >/dev/null ||
		fail "$dt: dumpimage cannot unwrap initrd.uimg"
	# the payload is a cpio whose last member is the plan the import reads
	[ "$(head -c 6 "$TMP/payload")" = 070701 ] || fail "$dt: the payload is not a newc cpio"
	python3 -c 'import sys; sys.exit(open(sys.argv[2], "rb").read() not in open(sys.argv[1], "rb").read())' \
		"$TMP/payload" "$out/plan.txt" || fail "$dt: the payload lacks the plan"
	python3 - "$out/job.json" "$dt" <<'PY' || fail "$dt: job.json"
import json, sys
d, dt = json.load(open(sys.argv[1])), sys.argv[2]
dep, boot = d["actions"][0]["deploy"], d["actions"][1]["boot"]
assert d["device_type"] == dt, d["device_type"]
assert dep["to"] == "tftp" and dep["kernel"] == {"url": f"http://files.example/{dt}/Image", "type": "image"}, dep
assert dep["ramdisk"]["url"] == f"http://files.example/{dt}/initrd.uimg" and dep["ramdisk"]["header"] == "u-boot", dep
assert dep["dtb"] == {"url": f"http://files.example/{dt}/{dt}.dtb"}, dep
assert boot["method"] == "u-boot" and boot["commands"] == "ramdisk", boot
assert "console=" not in d["context"]["extra_kernel_args"], d["context"]
PY
	echo "$dt: Image, $dt.dtb, initrd.uimg ($(sed -n 's/^Data Size: *//p' "$TMP/hdr"))"
done
# a kernel given by path has no tree the lab knows of
expect_bad "a kernel without device trees" "$LAB" lava export --device-type bcm2711-rpi-4-b \
	--kernel "$image" --suite smoke --artifacts http://files.example/ --out "$TMP/nodtb"
grep -q "boots with the board's device tree, and kernel .* has none" "$TMP/err" ||
	fail "the refusal does not say the tree is missing"
[ ! -e "$TMP/nodtb" ] || fail "a refused export left its directory"
echo ok
