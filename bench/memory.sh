#!/usr/bin/env bash
# bench/memory.sh: peak resident memory of `rsgen build` over a tree of many
# tiny files (default 1,000,000 files of 0-64 bytes, 1,000 per directory),
# measured with GNU time (Debian package "time"). The tree takes one inode
# per file; it is removed at the end unless -k.
#
# Usage: bench/memory.sh [-r RUNS] [-n FILES] [-d DIR] [-k]
set -euo pipefail
source "$(dirname "$0")/lib.sh"

runs=3 files=1000000 dir="" keep=0
while getopts "r:n:d:k" opt; do
  case $opt in
  r) runs=$OPTARG ;; n) files=$OPTARG ;; d) dir=$OPTARG ;; k) keep=1 ;;
  *) die "usage: $0 [-r RUNS] [-n FILES] [-d DIR] [-k]" ;;
  esac
done
[ -x /usr/bin/time ] || die "GNU time is needed: apt-get install time"
[ -n "$dir" ] || dir=$(mktemp -d "${TMPDIR:-/var/tmp}/rsgen-bench.XXXXXX")
mkdir -p "$dir"
[ "$keep" = 1 ] || trap 'rm -rf "$dir"' EXIT
bin=$dir/bin
build_tools "$bin"
if [ ! -d "$dir/tiny" ]; then
  note "writing $files tiny files"
  "$bin/gencorpus" -out "$dir/tiny" -files "$files" -min 0 -max 64 -per-dir 1000
fi

rss=() secs=() docs=""
for ((i = 1; i <= runs; i++)); do
  note "run $i of $runs"
  /usr/bin/time -f "%M %e" -o "$dir/time.txt" "$bin/rsgen" build -q --hash sha-256 \
    --base-url https://example.org/ --at 2024-01-01T00:00:00Z --out "$dir/out" "$dir/tiny" ||
    die "rsgen build failed"
  read -r kb s <"$dir/time.txt"
  rss+=("$kb") secs+=("$s")
done
docs=$(find "$dir/out/resourcesync" -name '*.xml' | wc -l)
med_kb=$(printf '%s\n' "${rss[@]}" | median)

echo "### Memory, $files files ($(date -u +%Y-%m-%d))"
echo
machine "$dir"
echo
echo "| files | documents written | peak RSS per run (MiB) | median peak RSS | per file | time per run (s) |"
echo "| --- | --- | --- | --- | --- | --- |"
mib() { for k in "$@"; do printf '%d ' $((k / 1024)); done; }
echo "| $files | $docs | $(mib "${rss[@]}")| $((med_kb / 1024)) MiB | $((med_kb * 1024 / files)) bytes | ${secs[*]} |"
