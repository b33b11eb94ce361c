#!/usr/bin/env bash
# bench/lists.sh: times `rsgen build --hash sha-256` against the baselines
# of issue 2, in the same run, on a warm page cache, and prints the medians
# as Markdown for docs/PERFORMANCE.md.
#
#   small files: rsgen vs  find SRC -type f -print0 | xargs -0 -P2 -n 1000 sha256sum
#                (target: rsgen takes at most about half the time)
#   large files: rsgen vs  two `openssl dgst -sha256` at once, each on half
#                the files (two cores hashing with OpenSSL's SHA-NI code);
#                two sha256sum at once and `openssl speed` for reference
#                (target: rsgen within 10% of two cores' hashing speed)
#
# Usage: bench/lists.sh [-r RUNS] [-s SMALL_FILES] [-l LARGE_FILES] [-L LARGE_SIZE] [-d DIR] [-k]
#   -r RUNS        timed runs of each command, interleaved (default 5)
#   -s N           small files, 0.5-8 KiB (default 50000)
#   -l N, -L SIZE  large files and their size (default 4 x 256MiB)
#   -d DIR         where to put the corpora (default: a new directory under $TMPDIR or /var/tmp)
#   -k             keep the corpora (and reuse them if DIR has them)
set -euo pipefail
source "$(dirname "$0")/lib.sh"

runs=5 small=50000 large=4 large_size=256MiB dir="" keep=0
while getopts "r:s:l:L:d:k" opt; do
  case $opt in
  r) runs=$OPTARG ;; s) small=$OPTARG ;; l) large=$OPTARG ;; L) large_size=$OPTARG ;;
  d) dir=$OPTARG ;; k) keep=1 ;; *) die "usage: $0 [-r RUNS] [-s N] [-l N] [-L SIZE] [-d DIR] [-k]" ;;
  esac
done
command -v openssl >/dev/null || die "openssl is needed for the large-file reference"
[ -n "$dir" ] || dir=$(mktemp -d "${TMPDIR:-/var/tmp}/rsgen-bench.XXXXXX")
mkdir -p "$dir"
[ "$keep" = 1 ] || trap 'rm -rf "$dir"' EXIT
bin=$dir/bin
build_tools "$bin"

if [ ! -d "$dir/small" ]; then
  note "writing $small small files"
  "$bin/gencorpus" -out "$dir/small" -files "$small" -min 512 -max 8KiB -per-dir 500
fi
if [ ! -d "$dir/large" ]; then
  note "writing $large files of $large_size"
  "$bin/gencorpus" -out "$dir/large" -files "$large" -min "$large_size" -max "$large_size" -per-dir "$large" -seed 2
fi
mapfile -t large_files < <(find "$dir/large" -type f | sort)
half=$(((${#large_files[@]} + 1) / 2))
large_bytes=$(du -cb "${large_files[@]}" | tail -1 | cut -f1)
small_bytes=$(find "$dir/small" -type f -printf '%s\n' | awk '{s += $1} END {print s}')

rsgen_build() { "$bin/rsgen" build -q --hash sha-256 --base-url https://example.org/ --at 2024-01-01T00:00:00Z --out "$dir/out" "$1"; }
xargs_sha256sum() { find "$1" -type f -print0 | xargs -0 -P2 -n 1000 sha256sum; }
two() { "$@" "${large_files[@]:0:half}" & "$@" "${large_files[@]:half}" & wait %1 && wait %2; }

note "warming the page cache"
warm "$dir/small"
warm "$dir/large"
rsgen_build "$dir/small" && xargs_sha256sum "$dir/small" >/dev/null && rsgen_build "$dir/large"

load_before=$(loadavg)
declare -A t c
# run KEY CMD...: times CMD and appends its wall and CPU milliseconds to t[KEY] and c[KEY].
run() {
  local key=$1 r
  shift
  r=$(ms "$@")
  t[$key]+="${r% *} "
  c[$key]+="${r#* } "
}
for ((i = 1; i <= runs; i++)); do
  note "run $i of $runs"
  # Alternate the order so that neither command always runs first.
  if ((i % 2)); then
    run rs_small rsgen_build "$dir/small"
    run xargs xargs_sha256sum "$dir/small"
  else
    run xargs xargs_sha256sum "$dir/small"
    run rs_small rsgen_build "$dir/small"
  fi
  run rs_large rsgen_build "$dir/large"
  run openssl2 two openssl dgst -sha256
  run sha256sum2 two sha256sum
done
load_after=$(loadavg)
speed1=$(openssl speed -seconds 3 -bytes 262144 -evp sha256 2>/dev/null | awk '/^sha256/ {sub("k", "", $NF); print $NF * 1000}')

med() { tr ' ' '\n' <<<"${t[$1]}" | grep . | median; }
cmed() { tr ' ' '\n' <<<"${c[$1]}" | grep . | median; }
mbs() { awk -v b="$1" -v ms="$2" 'BEGIN {printf "%.0f", b / 1048576 / (ms / 1000)}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }

echo "### Resource Lists, warm cache ($(date -u +%Y-%m-%d))"
echo
machine "$dir"
echo "- load average before/after: $load_before / $load_after (the machine is shared)"
echo
echo "| corpus | command | wall-clock runs (ms) | median | speed | time ratio | median CPU (user+sys) | CPU ratio |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
echo "| $small files, $((small_bytes / 1048576)) MiB | rsgen build --hash sha-256 | ${t[rs_small]% } | $(med rs_small) ms | $((small * 1000 / $(med rs_small))) files/s | **$(ratio "$(med rs_small)" "$(med xargs)")** | $(cmed rs_small) ms | $(ratio "$(cmed rs_small)" "$(cmed xargs)") |"
echo "| | find \| xargs -0 -P2 -n 1000 sha256sum | ${t[xargs]% } | $(med xargs) ms | $((small * 1000 / $(med xargs))) files/s | 1 | $(cmed xargs) ms | 1 |"
echo "| $large × $large_size | rsgen build --hash sha-256 | ${t[rs_large]% } | $(med rs_large) ms | $(mbs "$large_bytes" "$(med rs_large)") MiB/s | **$(ratio "$(med rs_large)" "$(med openssl2)")** | $(cmed rs_large) ms | $(ratio "$(cmed rs_large)" "$(cmed openssl2)") |"
echo "| | 2 × openssl dgst -sha256 at once | ${t[openssl2]% } | $(med openssl2) ms | $(mbs "$large_bytes" "$(med openssl2)") MiB/s | 1 | $(cmed openssl2) ms | 1 |"
echo "| | 2 × sha256sum at once | ${t[sha256sum2]% } | $(med sha256sum2) ms | $(mbs "$large_bytes" "$(med sha256sum2)") MiB/s | $(ratio "$(med sha256sum2)" "$(med openssl2)") | $(cmed sha256sum2) ms | $(ratio "$(cmed sha256sum2)" "$(cmed openssl2)") |"
echo
echo "Time ratio: the median time over that of the reference row below it (lower is faster). openssl speed -evp sha256,"
echo "one core, 256 KiB blocks, after the runs: $(awk -v s="$speed1" 'BEGIN {printf "%.0f MiB/s", s / 1048576}') (two cores: twice that, without reading any file)."
