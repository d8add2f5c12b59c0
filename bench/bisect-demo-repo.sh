#!/bin/bash
# bisect-demo-repo.sh - makes the demonstration repository for lab bisect: Debian's
# linux-source-6.1 as a base commit and 8 commits on top, the fifth of which
# sets the scheduler's migration cost to 0 (kernel-patches/0001-...).
#
#   bench/bisect-demo-repo.sh DIR     creates DIR (a git tree); prints nothing else
# Exit 0 when DIR exists and has the 9 commits, 2 when it cannot be made.
set -eu
cd "$(dirname "$0")/.." || exit 2
LABDIR=$(pwd)
DIR=${1:?usage: bisect-demo-repo.sh DIR}
TARBALL=${TARBALL:-/usr/src/linux-source-6.1.tar.xz}
PATCH=$LABDIR/kernel-patches/0001-sched-fair-demo-migration-cost-0.patch

die() { echo "bisect-demo-repo: $*" >&2; exit 2; }
if [ -d "$DIR/.git" ] && [ "$(git -C "$DIR" rev-list --count HEAD 2>/dev/null)" = 9 ]; then
	exit 0
fi
[ -f "$TARBALL" ] || die "no $TARBALL (apt-get install linux-source-6.1)"
rm -rf "$DIR" "$DIR.tmp"
mkdir -p "$DIR.tmp"
tar -xf "$TARBALL" -C "$DIR.tmp"
top=$(ls "$DIR.tmp")
[ "$(echo "$top" | wc -l)" = 1 ] || die "the tarball has more than one top directory"
mv "$DIR.tmp/$top" "$DIR"
rmdir "$DIR.tmp"
cd "$DIR"
export GIT_AUTHOR_NAME=schedlab GIT_AUTHOR_EMAIL=schedlab@localhost
export GIT_COMMITTER_NAME=schedlab GIT_COMMITTER_EMAIL=schedlab@localhost
# fixed dates: the same commits (and hashes) every time the demo is made
n=0
commit() {
	n=$((n + 1))
	export GIT_AUTHOR_DATE="2026-01-01T00:0$n:00Z" GIT_COMMITTER_DATE="2026-01-01T00:0$n:00Z"
	git add -A -f  # Debian's .gitignore ends with "/*"
	git commit -q -m "$1"
}
git init -q
git config core.autocrlf false
n=-1
commit "base: Debian's linux-source-6.1 as shipped"
echo "Bisection demo tree for schedlab." >>Documentation/scheduler/index.rst
commit "Documentation/scheduler: say this tree is a bisection demo"
sed -i '1s/^/# schedlab bisect demo\n/' tools/testing/selftests/sched/Makefile 2>/dev/null ||
	echo "# demo" >>tools/testing/selftests/sched/Makefile
commit "selftests/sched: a comment line"
echo >>MAINTAINERS
commit "MAINTAINERS: a trailing empty line"
echo "demo" >>Documentation/scheduler/sched-design-CFS.rst
commit "Documentation/scheduler: CFS, one more line"
patch -p1 -s <"$PATCH"
commit "sched/fair: migration cost 0, no task is cache-hot"
echo "Another demo line." >>Documentation/scheduler/index.rst
commit "Documentation/scheduler: a second demo line"
echo >>README
commit "README: a trailing empty line"
echo "/* schedlab bisect demo tree */" >>kernel/sched/fair.c
commit "sched/fair: a comment says this is the demo tree"
[ "$(git rev-list --count HEAD)" = 9 ] || die "the repository does not have 9 commits"
