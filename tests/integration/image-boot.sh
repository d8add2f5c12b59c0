# image-boot - the smoke suite inside a Debian minbase disk image (built by
# host-tools/mkimage, cached): same result layout as the initrd path, the
# image's own copy of the records agrees with the record channel, the
# user's image is never written, and bad images are one line and exit 2.
. "$(dirname "$0")/lib.sh"
topo=2s1c

t0=$(date +%s)
img=$(host-tools/mkimage) || fail "cannot build the test image"
echo "test image: $img ($(( $(date +%s) - t0 )) s to build or find)"

# the stage's modules and the appliance's kernel come from the kernel's
# cache entry (with a depmod-made modules.dep), never the host's /lib/modules
"$LAB" kernel --json >"$TMP/kernel.json" || fail "lab kernel --json"
mods=$(json "$TMP/kernel.json" 'd["modules"]')
case $mods in /lib/modules/* | "" | None) fail "the Debian kernel's modules are '$mods', not its cache entry's" ;; esac
[ -s "$mods/modules.dep" ] || fail "no modules.dep in '$mods'"
echo "modules: $mods"

echo "this is not a disk" >"$TMP/text.img"
expect_bad "text file" "$LAB" run --topo $topo --suite smoke --image "$TMP/text.img"
grep -q "is not a disk image" "$TMP/err" || fail "text file: wrong reason"

# root cannot be denied a read, so the unreadable case runs as nobody
mkdir -m 755 "$TMP/ro"
qemu-img create -q -f qcow2 "$TMP/ro/secret.qcow2" 64M
chmod 600 "$TMP/ro/secret.qcow2"
chmod 755 "$TMP"
expect_bad "unreadable image" setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$LAB" boot $topo --image "$TMP/ro/secret.qcow2"
grep -q "cannot read image" "$TMP/err" || fail "unreadable image: wrong reason"

# a valid qcow2 with nothing in it: only libguestfs can tell
qemu-img create -q -f qcow2 "$TMP/empty.qcow2" 64M
expect_bad "empty qcow2" "$LAB" run --topo $topo --suite smoke --image "$TMP/empty.qcow2" --accel tcg
grep -q "no usable root filesystem" "$TMP/err" || fail "empty qcow2: wrong reason"

sum_before=$(sha256sum <"$img")
mtime_before=$(stat -c %Y "$img")

smoke_run "$topo" initrd
initrd_run=$run
smoke_run "$topo" image --image "$img"
image_run=$run
grep -q '^image: results agree with the record channel' "$TMP/out" ||
	fail "image: no agreement line"

[ "$(sha256sum <"$img")" = "$sum_before" ] || fail "the user's image changed"
[ "$(stat -c %Y "$img")" = "$mtime_before" ] || fail "the user's image was touched"
echo "user image unchanged (sha256 and mtime)"

# Same files as the initrd path, plus the overlay and the image's copy.
only_initrd=$(comm -23 <(ls "$initrd_run" | sort) <(ls "$image_run" | sort))
extra=$(comm -13 <(ls "$initrd_run" | sort) <(ls "$image_run" | sort) | tr '\n' ' ')
[ -z "$only_initrd" ] || fail "missing in the image run: $only_initrd"
[ "$extra" = "image-records.bin image.qcow2 " ] || fail "unexpected extra files: $extra"
echo "same files as the initrd path, plus: $extra"

tests/integration/results.py same-shape "$initrd_run" "$image_run" ||
	fail "the image run's cases.json differs in form from the initrd run's"
python3 - "$initrd_run" "$image_run" <<'PY' || fail "the two record sources differ"
import json, sys
a, b = sys.argv[1], sys.argv[2]
v = json.load(open(b + "/verdict.json"))
assert v["verdict"] == "PASS" and v["image_results"] == "agree", v
assert v["image_records"] == v["records"], v
assert open(b + "/records.bin", "rb").read() == open(b + "/image-records.bin", "rb").read()
r = json.load(open(b + "/run.json"))
assert r["image_os"].startswith("debian"), r["image_os"]
print("%d records agree" % v["records"])
print("image: overlay %.1f s, read-back %.1f s, guest to END %.1f s (initrd %.1f s), to poweroff %.1f s" %
      (v["image_prepare_s"], v["image_collect_s"], v["wall_to_end_s"],
       json.load(open(a + "/verdict.json"))["wall_to_end_s"], v["wall_to_poweroff_s"]))
PY
echo ok
