#!/usr/bin/env bash
# bench/floor.sh: times a first build, `rsgen build --hash sha-256`,
# against the floor of reading and hashing the same files in Go with the
# same number of readers (bench/floor: a walk, -j readers, open, read
# through SHA-256, close, and nothing else), interleaved in the same run,
# warm and cold (drop_caches, needs root), and prints the medians as
# Markdown for docs/PERFORMANCE.md. Issue 11 asks for a first build within
# 1.1x of that floor on small files, and within 1.1x of two cores of
# SHA-256 on large ones.
#
# Usage: bench/floor.sh [-r RUNS] [-s SMALL_FILES] [-l LARGE_FILES] [-L LARGE_SIZE] [-d DIR] [-k] [-w]
#   -r RUNS        timed runs of each command, interleaved (default 5)
#   -s N           small files, 0.5-8 KiB (default 50000)
#   -l N, -L SIZE  large files and their size (default 4 x 256MiB)
#   -d DIR         where to put the corpora (default: a new directory under $TMPDIR or /var/tmp)
#   -k             keep the corpora (and reuse them if DIR has them)
#   -w             warm runs only (no root needed)
set -euo pipefail
source "$(dirname "$0")/lib.sh"

runs=5 small=50000 large=4 large_size=256MiB dir="" keep=0 warm_only=0
while getopts "r:s:l:L:d:kw" opt; do
  case $opt in
  r) runs=$OPTARG ;; s) small=$OPTARG ;; l) large=$OPTARG ;; L) large_size=$OPTARG ;;
  d) dir=$OPTARG ;; k) keep=1 ;; w) warm_only=1 ;; *) die "usage: $0 [-r RUNS] [-s N] [-l N] [-L SIZE] [-d DIR] [-k] [-w]" ;;
  esac
done
[ -n "$dir" ] || dir=$(mktemp -d "${TMPDIR:-/var/tmp}/rsgen-bench.XXXXXX")
mkdir -p "$dir"
[ "$keep" = 1 ] || trap 'rm -rf "$dir"' EXIT
bin=$dir/bin
build_tools "$bin"
(cd "$repo" && go build -o "$bin/floor" ./bench/floor) || die "go build of bench/floor failed"

if [ ! -d "$dir/small" ]; then
  note "writing $small small files"
  "$bin/gencorpus" -out "$dir/small" -files "$small" -min 512 -max 8KiB -per-dir 500
fi
if [ ! -d "$dir/large" ]; then
  note "writing $large files of $large_size"
  "$bin/gencorpus" -out "$dir/large" -files "$large" -min "$large_size" -max "$large_size" -per-dir 100
fi

echo "## bench/floor.sh, $(date -u +%Y-%m-%d)"
machine "$dir"
echo "- load before: $(loadavg)"
echo
echo "| corpus | cache | command | wall ms (median) | CPU ms (median) | wall ratio to the floor |"
echo "| --- | --- | --- | --- | --- | --- |"
modes="warm cold"
[ "$warm_only" = 1 ] && modes=warm
for corpus in small large; do
  for mode in $modes; do
    : >"$dir/rsgen.t"
    : >"$dir/floor.t"
    for _ in $(seq "$runs"); do
      for cmd in rsgen floor; do
        rm -rf "$dir/out"
        if [ "$mode" = cold ]; then drop_caches; else warm "$dir/$corpus"; fi
        if [ "$cmd" = rsgen ]; then
          ms "$bin/rsgen" build "$dir/$corpus" --base-url https://example.org/ --hash sha-256 --out "$dir/out" -q >>"$dir/rsgen.t"
        else
          ms "$bin/floor" "$dir/$corpus" >>"$dir/floor.t"
        fi
      done
    done
    fw=$(cut -d' ' -f1 "$dir/floor.t" | median)
    for cmd in floor rsgen; do
      w=$(cut -d' ' -f1 "$dir/$cmd.t" | median)
      c=$(cut -d' ' -f2 "$dir/$cmd.t" | median)
      echo "| $corpus | $mode | $cmd | $w | $c | $(awk -v a="$w" -v b="$fw" 'BEGIN {printf "%.2f", a / b}') |"
    done
  done
done
echo
echo "- load after: $(loadavg)"
