#!/bin/bash
# image-built-kernel - lab-built kernels and disk images (--image --kernel KEY).
#
# 1. A lab-base kernel has no block layer, virtio disk or ext4: --image with
#    it is one line naming the 'image' config fragment, exit 2, before any
#    boot or libguestfs appliance.
# 2. A lab-base + image kernel (kernel-configs/image: drivers built in) runs
#    the smoke suite inside the small test image (host-tools/mkimage) on
#    2s2c: stage1 has no module to load and waits for the disk, the hook
#    runs on the built kernel, the overlay's records agree with the channel
#    and the user's image is unchanged.
#
# Each part needs its kernel in the cache (`make kernel KSRC=/usr/src/
# linux-source-6.1.tar.xz CONFIGS=image`, about 6-10 minutes here); part 2
# SKIPs without it unless IMAGE_KERNEL_BUILD=1, which builds it.
. "$(dirname "$0")/lib.sh"
topo=2s2c
TARBALL=/usr/src/linux-source-6.1.tar.xz

# key_of FRAGMENT: the key of lab-base + FRAGMENT in $key, "yes" in $cached
# when it is built
key_of() {
	local rc=0
	"$LAB" kernel build --ksrc "$TARBALL" --config "$1" --key-only >"$TMP/kout" 2>&1 || rc=$?
	[ "$rc" -eq 0 ] || skip "cannot compute the $1 kernel's key (no $TARBALL?): $(cat "$TMP/kout")"
	key=$(sed -n 's/^key: //p' "$TMP/kout")
	cached=$(sed -n 's/^cached: //p' "$TMP/kout")
}

small=$(host-tools/mkimage) || fail "cannot build the test image"
echo "test image: $small"

echo "== 1. lab-base (no disk drivers) with --image"
key_of lab-base
if [ "$cached" = yes ]; then
	rc=0
	"$LAB" run --topo $topo --suite smoke --accel tcg --kernel "$key" --image "$small" \
		>"$TMP/out" 2>"$TMP/err" || rc=$?
	echo "lab-base $key: exit $rc: $(cat "$TMP/err")"
	[ "$rc" -eq 2 ] || fail "lab-base with --image: exit $rc, expected 2"
	[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "lab-base with --image: not one line on stderr"
	grep -q "cannot boot a disk image: CONFIG_VIRTIO_PCI, CONFIG_VIRTIO_BLK, CONFIG_EXT4_FS, CONFIG_BLOCK, CONFIG_MSDOS_PARTITION are not set (build it with the 'image' config fragment: lab kernel build --config image)" \
		"$TMP/err" || fail "lab-base with --image: the error does not name the fragment"
	[ ! -d "$TMP/results" ] || [ -z "$(ls -A "$TMP/results")" ] ||
		fail "lab-base with --image: something was written under results/"
else
	echo "lab-base kernel $key is not built: part 1 not run"
fi

echo "== 2. lab-base + image with --image"
key_of image
if [ "$cached" != yes ]; then
	[ "${IMAGE_KERNEL_BUILD:-0}" = 1 ] ||
		skip "image kernel $key is not built (IMAGE_KERNEL_BUILD=1 builds it, 6-10 min)"
	"$LAB" kernel build --ksrc "$TARBALL" --config image || fail "cannot build the image kernel"
fi
echo "image kernel: $key"

sum_before=$(sha256sum <"$small")
rc=0
"$LAB" run --topo $topo --suite smoke --accel tcg --kernel "$key" --image "$small" \
	>"$TMP/out" 2>"$TMP/err" || rc=$?
cat "$TMP/out"
sed 's/^/stderr: /' "$TMP/err"
[ "$rc" -eq 0 ] || fail "lab run with the image kernel exited $rc"
grep -qx 'topology: PASS' "$TMP/out" || fail "topology not verified"
grep -q '^image: results agree with the record channel' "$TMP/out" || fail "no agreement line"
run=$(sed -n 's/^results: //p' "$TMP/out")
[ "$(sha256sum <"$small")" = "$sum_before" ] || fail "the user's image changed"

tr -d '\r' <"$run/console.log" >"$TMP/console"
grep -q '^schedlab: stage1: disk drivers built in, no modules to load$' "$TMP/console" ||
	fail "stage1 did not find the drivers built in"
release=$(json "$run/run.json" 'd["kernel"]')
grep -q "^schedlab: image hook on kernel $release\$" "$TMP/console" ||
	fail "the hook did not run on the built kernel $release"
python3 - "$run" "$key" <<'PY' || fail "run.json or verdict.json of the built-kernel run"
import json, sys
run, key = sys.argv[1], sys.argv[2]
r, v = json.load(open(run + "/run.json")), json.load(open(run + "/verdict.json"))
assert r["kernel_source"] == "build" and key in r["kernel_image"], (r["kernel_source"], r["kernel_image"])
assert "lab.root=/dev/vda1" in r["cmdline"], r["cmdline"]
assert v["verdict"] == "PASS" and v["image_results"] == "agree", v
assert v["image_records"] == v["records"] and v["records_missing"] == 0, v
c = json.load(open(run + "/cases.json"))
bad = [x["case"] for x in c["cases"] if x["verdict"] not in ("PASS", "SKIP")]
assert not bad, bad
print("built kernel %s (%s): %d cases, %d records agree; guest to runner %.1f s, to END %.1f s" %
      (r["kernel"], key, len(c["cases"]), v["records"], v["wall_to_runner_s"], v["wall_to_end_s"]))
PY
echo ok
