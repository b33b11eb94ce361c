#!/usr/bin/env bash
# bench/cold.sh: times a first build of small files on a cold page cache,
# `rsgen build --hash sha-256`, against `find DIR -type f -print0 | xargs -0
# -P8 -n 1000 sha256sum` (issue 23: a cold first build no slower than that
# line), interleaved, with the page cache, dentries and inodes dropped
# before every run (sync; echo 3 > /proc/sys/vm/drop_caches: needs root).
# With -o OLD, the rsgen binary OLD is timed too, interleaved with the
# others. Prints the medians of wall and CPU time (user + system) as
# Markdown for docs/PERFORMANCE.md.
#
# Usage: bench/cold.sh [-r RUNS] [-s SMALL_FILES] [-o OLD_RSGEN] [-d DIR] [-k]
#   -r RUNS   timed runs of each command, interleaved (default 5)
#   -s N      small files, 0.5-8 KiB, 500 a directory (default 50000)
#   -o OLD    another rsgen binary to time alongside this checkout's
#   -d DIR    where to put the corpus (default: a new directory under $TMPDIR or /var/tmp)
#   -k        keep the corpus (and reuse it if DIR has it)
set -euo pipefail
source "$(dirname "$0")/lib.sh"

runs=5 small=50000 old="" dir="" keep=0
while getopts "r:s:o:d:k" opt; do
  case $opt in
  r) runs=$OPTARG ;; s) small=$OPTARG ;; o) old=$OPTARG ;; d) dir=$OPTARG ;; k) keep=1 ;;
  *) die "usage: $0 [-r RUNS] [-s N] [-o OLD] [-d DIR] [-k]" ;;
  esac
done
drop_caches # fail early if cold runs are impossible
[ -n "$dir" ] || dir=$(mktemp -d "${TMPDIR:-/var/tmp}/rsgen-bench.XXXXXX")
mkdir -p "$dir"
[ "$keep" = 1 ] || trap 'rm -rf "$dir"' EXIT
bin=$dir/bin
build_tools "$bin"
if [ ! -d "$dir/small" ]; then
  note "writing $small small files"
  "$bin/gencorpus" -out "$dir/small" -files "$small" -min 512 -max 8KiB -per-dir 500
fi

xargs_line() { find "$dir/small" -type f -print0 | xargs -0 -P8 -n 1000 sha256sum; }
rsgen_build() { "$1" build -q --hash sha-256 --base-url https://example.org/ --at 2024-01-01T00:00:00Z --out "$dir/out" "$dir/small"; }

names="xargs rsgen"
[ -z "$old" ] || names="xargs old rsgen"
load_before=$(loadavg)
declare -A wall cpu
for ((i = 1; i <= runs; i++)); do
  note "run $i of $runs"
  for n in $names; do
    drop_caches
    case $n in
    xargs) r=$(ms xargs_line) ;;
    old) r=$(ms rsgen_build "$old") ;;
    rsgen) r=$(ms rsgen_build "$bin/rsgen") ;;
    esac
    wall[$n]+="${r% *} " cpu[$n]+="${r#* } "
  done
done
load_after=$(loadavg)

med() { tr ' ' '\n' <<<"$1" | grep . | median; }
echo "### Cold first build, $small small files ($(date -u +%Y-%m-%d))"
echo
machine "$dir"
echo "- load average before/after: $load_before / $load_after (the machine is shared)"
echo
echo "| command | wall runs (ms) | wall median (ms) | CPU median (ms) | wall / xargs |"
echo "| --- | --- | --- | --- | --- |"
x=$(med "${wall[xargs]}")
for n in $names; do
  w=$(med "${wall[$n]}")
  echo "| $n | ${wall[$n]% } | $w | $(med "${cpu[$n]}") | $(awk -v a="$w" -v b="$x" 'BEGIN {printf "%.2f", a / b}') |"
done
