#!/bin/bash
# mkimage.sh - builds the distro test image for `lab run --image`: Debian
# bookworm minbase from Debian's archive, one ext4 partition, qcow2.
#
# Usage: mkimage.sh          prints the image path (built once, then cached)
# The image is cached under $LAB_CACHE/images/ keyed by everything that
# goes into it (suite, variant, mirror, size policy and this script), so a
# change to any of them builds a new one and a CI machine builds it once.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${LAB_CACHE:-$here/../../.cache}
suite=${MKIMAGE_SUITE:-bookworm}
mirror=${MKIMAGE_MIRROR:-http://deb.debian.org/debian}
variant=minbase

key=$( { echo "$suite $variant $mirror"; cat "$0"; } | sha256sum | cut -c1-16)
out=$cache/images/debian-$suite-$variant-$key.qcow2
if [ -s "$out" ]; then
	echo "$out"
	exit 0
fi

for tool in debootstrap mke2fs sfdisk qemu-img; do
	command -v "$tool" >/dev/null || { echo "mkimage: error: '$tool' is missing (host-tools/install-deps check)" >&2; exit 2; }
done

mkdir -p "$cache/images"
work=$(mktemp -d "$cache/images/build-XXXXXX")
trap 'rm -rf "$work"' EXIT

t0=$(date +%s.%N)
# --variant=minbase: essential packages and apt only; no kernel, no init
# system beyond what sysvinit-utils brings: the lab boots its own kernel
# and its own init hook.
if ! debootstrap --variant=minbase "$suite" "$work/root" "$mirror" >"$work/debootstrap.log" 2>&1; then
	tail -n 5 "$work/debootstrap.log" >&2
	echo "mkimage: error: debootstrap $suite failed" >&2
	exit 1
fi
rm -rf "$work/root/var/cache/apt/archives/"*.deb "$work/root/var/lib/apt/lists/"*
echo "schedlab-test" > "$work/root/etc/hostname"
printf '/dev/vda1 / ext4 defaults 0 1\n' > "$work/root/etc/fstab"
t1=$(date +%s.%N)

# One partition starting at 1 MiB, like a cloud image, filled by mke2fs -d
# at that offset: no loop device, no mount, no root-only kernel features.
used_mb=$(du -sm "$work/root" | cut -f1)
fs_mb=$(( used_mb * 3 / 2 + 128 ))
disk_mb=$(( fs_mb + 2 ))
truncate -s "${disk_mb}M" "$work/disk.raw"
echo 'start=2048, type=83' | sfdisk -q "$work/disk.raw"
mke2fs -q -t ext4 -L root -d "$work/root" -E offset=1048576 "$work/disk.raw" "${fs_mb}M"
qemu-img convert -f raw -O qcow2 "$work/disk.raw" "$work/disk.qcow2"
mv "$work/disk.qcow2" "$out"
t2=$(date +%s.%N)
printf 'mkimage: debootstrap %.1f s, image %.1f s, %s (%s MB used)\n' \
	"$(echo "$t1 - $t0" | bc)" "$(echo "$t2 - $t1" | bc)" "$out" "$used_mb" >&2
echo "$out"
