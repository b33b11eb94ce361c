#!/usr/bin/env bash
# bench/jobs.sh: times `rsgen build --hash sha-256 --jobs N` over the small-file
# corpus of bench/lists.sh for several N, on a cold and on a warm page cache,
# and prints the medians as Markdown. This is how the default of --jobs was
# chosen (docs/PERFORMANCE.md, "Choosing --jobs").
#
# Cold runs empty the page cache, dentries and inodes before each run
# (sync; echo 3 > /proc/sys/vm/drop_caches): they need root. -w skips them.
#
# Usage: bench/jobs.sh [-r RUNS] [-s SMALL_FILES] [-j "1 2 4 8 16 32"] [-d DIR] [-k] [-w]
set -euo pipefail
source "$(dirname "$0")/lib.sh"

runs=3 small=50000 jobs="1 2 4 8 16 32" dir="" keep=0 warm_only=0
while getopts "r:s:j:d:kw" opt; do
  case $opt in
  r) runs=$OPTARG ;; s) small=$OPTARG ;; j) jobs=$OPTARG ;; d) dir=$OPTARG ;; k) keep=1 ;; w) warm_only=1 ;;
  *) die "usage: $0 [-r RUNS] [-s N] [-j LIST] [-d DIR] [-k] [-w]" ;;
  esac
done
[ "$warm_only" = 1 ] || drop_caches # fail early if cold runs are impossible
[ -n "$dir" ] || dir=$(mktemp -d "${TMPDIR:-/var/tmp}/rsgen-bench.XXXXXX")
mkdir -p "$dir"
[ "$keep" = 1 ] || trap 'rm -rf "$dir"' EXIT
bin=$dir/bin
build_tools "$bin"
if [ ! -d "$dir/small" ]; then
  note "writing $small small files"
  "$bin/gencorpus" -out "$dir/small" -files "$small" -min 512 -max 8KiB -per-dir 500
fi

rsgen_build() { "$bin/rsgen" build -q --hash sha-256 --base-url https://example.org/ --at 2024-01-01T00:00:00Z --out "$dir/out" --jobs "$1" "$dir/small"; }

load_before=$(loadavg)
declare -A cold warm
for ((i = 1; i <= runs; i++)); do
  note "run $i of $runs"
  for j in $jobs; do
    if [ "$warm_only" = 0 ]; then
      drop_caches
      r=$(ms rsgen_build "$j")
      cold[$j]+="${r% *} "
    fi
    r=$(ms rsgen_build "$j") # the cold run just read everything
    warm[$j]+="${r% *} "
  done
done
load_after=$(loadavg)

med() { tr ' ' '\n' <<<"$1" | grep . | median; }
echo "### --jobs, $small small files ($(date -u +%Y-%m-%d))"
echo
machine "$dir"
echo "- load average before/after: $load_before / $load_after (the machine is shared)"
echo
echo "| --jobs | cold runs (ms) | cold median (ms) | warm runs (ms) | warm median (ms) |"
echo "| --- | --- | --- | --- | --- |"
for j in $jobs; do
  if [ "$warm_only" = 0 ]; then
    echo "| $j | ${cold[$j]% } | $(med "${cold[$j]}") | ${warm[$j]% } | $(med "${warm[$j]}") |"
  else
    echo "| $j | | | ${warm[$j]% } | $(med "${warm[$j]}") |"
  fi
done
