#!/bin/bash
# bisect-demo-repo.sh - makes the demonstration repository for lab bisect: Debian's
# linux-source-6.1 as a base commit and 8 commits on top, the fifth of which
# sets the scheduler's migration cost to 0 (kernel-patches/0001-...), on
# branch master.  VARIANT=wa-idle adds branch wa-idle to the same tree: 8
# other commits on the same base, the sixth turning the scheduler feature
# WA_IDLE off by default (a wakeup placement decision, not a constant the
# guest reads).  One tree for both, so lab's kept build directory of the tree
# (keyed by its path) serves both and every build is incremental.
#
#   bench/bisect-demo-repo.sh DIR                    creates DIR (a git tree)
#   VARIANT=wa-idle bench/bisect-demo-repo.sh DIR    and its branch wa-idle
# Prints nothing else.  Exit 0 when DIR has the branch's 9 commits, 2 when
# they cannot be made.
set -eu
cd "$(dirname "$0")/.." || exit 2
LABDIR=$(pwd)
DIR=${1:?usage: bisect-demo-repo.sh DIR}
TARBALL=${TARBALL:-/usr/src/linux-source-6.1.tar.xz}
PATCH=$LABDIR/kernel-patches/0001-sched-fair-demo-migration-cost-0.patch

VARIANT=${VARIANT:-migration-cost}

die() { echo "bisect-demo-repo: $*" >&2; exit 2; }
case $VARIANT in
migration-cost | wa-idle) ;;
*) die "VARIANT is migration-cost or wa-idle, not '$VARIANT'" ;;
esac
export GIT_AUTHOR_NAME=schedlab GIT_AUTHOR_EMAIL=schedlab@localhost
export GIT_COMMITTER_NAME=schedlab GIT_COMMITTER_EMAIL=schedlab@localhost
# fixed dates: the same commits (and hashes) every time the demo is made
n=0
commit() {
	local mm
	n=$((n + 1))
	mm=$(printf %02d "$n")
	export GIT_AUTHOR_DATE="2026-01-01T00:$mm:00Z" GIT_COMMITTER_DATE="2026-01-01T00:$mm:00Z"
	git add -A -f  # Debian's .gitignore ends with "/*"
	git commit -q -m "$1"
}

# Branch wa-idle: the master tree's base commit and 8 commits, the sixth
# turning WA_IDLE off (kernel/sched/features.h); the work tree is left on
# master, lab builds from the commits.
wa_idle() {
	local base
	[ "$(git -C "$DIR" rev-list --count wa-idle 2>/dev/null)" = 9 ] && return 0
	base=$(git -C "$DIR" rev-list --max-parents=0 master) || die "$DIR has no base commit"
	[ -n "$base" ] || die "$DIR has no base commit"
	git -C "$DIR" diff --quiet HEAD || die "$DIR has uncommitted changes"
	(
		cd "$DIR" || exit 2
		git checkout -q -B wa-idle "$base" || exit 2
		n=10
		echo "Wakeup placement demo." >>Documentation/scheduler/index.rst
		commit "Documentation/scheduler: say this branch is a wakeup demo"
		echo >>CREDITS
		commit "CREDITS: a trailing empty line"
		echo "# schedlab wakeup demo" >>tools/testing/selftests/sched/Makefile
		commit "selftests/sched: a comment line for the wakeup demo"
		echo "/* schedlab wakeup demo */" >>kernel/sched/features.h
		commit "sched/features: a comment says this is the wakeup demo"
		echo "demo" >>Documentation/scheduler/sched-domains.rst
		commit "Documentation/scheduler: domains, one more line"
		grep -q '^SCHED_FEAT(WA_IDLE, true)$' kernel/sched/features.h || exit 2
		sed -i 's/^SCHED_FEAT(WA_IDLE, true)$/SCHED_FEAT(WA_IDLE, false)/' kernel/sched/features.h
		commit "sched/features: WA_IDLE off, wake_affine() decides on load alone"
		echo "Another wakeup demo line." >>Documentation/scheduler/index.rst
		commit "Documentation/scheduler: a second wakeup demo line"
		echo "/* schedlab wakeup demo tree */" >>kernel/sched/fair.c
		commit "sched/fair: a comment says this is the wakeup demo tree"
		git checkout -q master
	) || die "cannot make branch wa-idle in $DIR"
	[ "$(git -C "$DIR" rev-list --count wa-idle)" = 9 ] || die "branch wa-idle does not have 9 commits"
}

if [ -d "$DIR/.git" ] && [ "$(git -C "$DIR" rev-list --count master 2>/dev/null)" = 9 ]; then
	[ "$VARIANT" = wa-idle ] && wa_idle
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
git init -q -b master
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
cd "$LABDIR"
[ "$VARIANT" = wa-idle ] && wa_idle
exit 0
