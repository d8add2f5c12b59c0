# lib-fidelity.sh - sourced by the bench scripts that hold one of our
# workloads against the real tool it models on this host (hackbench.sh, fidelity-*.sh).
#
# A script calls fid_init, fid_need for each tool, then per configuration
# fid_rounds with two functions (ours, the reference) that print
# "metric value" lines on stdout, then fid_row per metric, then fid_finish.
# Medians of the rounds are compared; the issue asks ours / reference to
# stay within 0.8 .. 1.25.  Exit 0 when every row is inside, 1 when one is
# outside or a run printed nothing, 77 (skip) when a tool is missing.
# RUNNER=path picks another runner binary (default build/guest/runner).

FID_LOW=0.8
FID_HIGH=1.25

# fid_args DEFAULT_ROUNDS DEFAULT_CONFIG... -- "$@": the rounds (the first
# argument, else the default) in fid_n_rounds, the configurations (the
# other arguments, else the defaults) in the array fid_configs.
fid_args() {
	local -a fid_def=()
	fid_n_rounds=$1
	shift
	while [ "$1" != -- ]; do
		fid_def+=("$1")
		shift
	done
	shift
	if [ $# -gt 0 ]; then
		fid_n_rounds=$1
		shift
	fi
	fid_configs=("$@")
	[ ${#fid_configs[@]} -gt 0 ] || fid_configs=("${fid_def[@]}")
}

# fid_init NAME: the temporary directory and the runner.
fid_init() {
	fid_name=$1
	fid_status=0
	fid_header=
	fid_tmp=$(mktemp -d "/tmp/schedlab-$fid_name.XXXXXX")
	trap 'rm -rf "$fid_tmp"' EXIT
	fid_runner=${RUNNER:-build/guest/runner}
	if [ -z "${RUNNER:-}" ]; then
		make -s build/guest/runner >&2
	fi
	echo "$fid_name: host $(nproc) cpus, load before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
}

# fid_need PATH WHAT: skip the whole bench, with the reason, when PATH is
# not an executable.
fid_need() {
	if [ ! -x "$1" ]; then
		echo "$fid_name: skip: '$1' missing ($2)" >&2
		exit 77
	fi
}

# fid_ours WORKLOAD KEY=VALUE...: our workload on this host, its metrics
# as "metric value" lines.
fid_ours() {
	local fid_kv
	local -a fid_a=(--workload "$1")
	shift
	for fid_kv in "$@"; do fid_a+=(--set "$fid_kv"); done
	"$fid_runner" "${fid_a[@]}" | awk 'NF >= 2 { print $1, $2 }'
}

# fid_rounds ROUNDS TAG OURS_FN REF_FN [ARGS...]: ROUNDS runs of each,
# alternating which goes first so that slow drift of the host cancels.
fid_rounds() {
	# fid_-prefixed locals: bash scoping is dynamic, the callbacks see them
	local fid_n=$1 fid_tag=$2 fid_o=$3 fid_r=$4 fid_i
	shift 4
	: >"$fid_tmp/$fid_tag.ours"
	: >"$fid_tmp/$fid_tag.ref"
	for ((fid_i = 0; fid_i < fid_n; fid_i++)); do
		if ((fid_i % 2)); then
			"$fid_r" "$@" >>"$fid_tmp/$fid_tag.ref" || true
			"$fid_o" "$@" >>"$fid_tmp/$fid_tag.ours" || true
		else
			"$fid_o" "$@" >>"$fid_tmp/$fid_tag.ours" || true
			"$fid_r" "$@" >>"$fid_tmp/$fid_tag.ref" || true
		fi
	done
	fid_rounds_done=$fid_n
}

# fid_values FILE METRIC: the metric's values, one a line, in round order.
fid_values() {
	awk -v m="$2" '$1 == m { print $2 }' "$1"
}

fid_median() {
	sort -g | awk '{ a[NR] = $1 } END { if (NR) print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# fid_row TAG OURS_METRIC REF_METRIC [LABEL]: one line of the table, the
# median of each side and their ratio; the rounds' values go to stderr.
fid_row() {
	local tag=$1 om=$2 rm=$3 label=${4:-$2} o t n_o n_t ratio verdict
	if [ -z "$fid_header" ]; then
		printf '%-28s %-14s %12s %12s %7s %s\n' config metric ours reference ratio verdict
		fid_header=1
	fi
	n_o=$(fid_values "$fid_tmp/$tag.ours" "$om" | wc -l)
	n_t=$(fid_values "$fid_tmp/$tag.ref" "$rm" | wc -l)
	if [ "$n_o" -ne "$fid_rounds_done" ] || [ "$n_t" -ne "$fid_rounds_done" ]; then
		printf '%-28s %-14s %12s %12s %7s %s\n' "$tag" "$label" "${n_o}runs" "${n_t}runs" - \
			"FAIL (a run printed no $label)"
		fid_status=1
		return
	fi
	o=$(fid_values "$fid_tmp/$tag.ours" "$om" | fid_median)
	t=$(fid_values "$fid_tmp/$tag.ref" "$rm" | fid_median)
	ratio=$(awk -v a="$o" -v b="$t" 'BEGIN { if (b == 0) print "inf"; else printf "%.3f", a / b }')
	if awk -v x="$ratio" -v lo="$FID_LOW" -v hi="$FID_HIGH" 'BEGIN { exit !(x != "inf" && x >= lo && x <= hi) }'; then
		verdict=PASS
	else
		verdict=FAIL
		fid_status=1
	fi
	printf '%-28s %-14s %12.4g %12.4g %7s %s\n' "$tag" "$label" "$o" "$t" "$ratio" "$verdict"
	echo "  $tag $label ours: $(fid_values "$fid_tmp/$tag.ours" "$om" | tr '\n' ' ')" >&2
	echo "  $tag $label ref:  $(fid_values "$fid_tmp/$tag.ref" "$rm" | tr '\n' ' ')" >&2
}

fid_finish() {
	echo "$fid_name: load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
	exit "$fid_status"
}
