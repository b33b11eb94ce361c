#!/usr/bin/env bash
# Times builds of an unchanged tree of 200,000 files with a cold and with a
# warm hash cache (--cache): median of 3 runs of each, in the same run, on
# the same corpus. The corpus is generated once under /tmp and reused.
#
#   bench/cache.sh                    # N=200000 RUNS=3 MEDIAN_KB=8
#   N=20000 RUNS=5 MEDIAN_KB=64 bench/cache.sh
#
# "cold": --cache names a file that does not exist yet (every file is read
# and hashed, and the cache is written); "warm": the same build again, with
# the cache the cold build wrote (no file is read). Both run with a warm page
# cache, so that the difference is hashing and reading, not the disk. A
# build without --cache is timed too, to show that the uncached path pays
# nothing for the cache.
set -euo pipefail
cd "$(dirname "$0")/.."

N=${N:-200000}
RUNS=${RUNS:-3}
MEDIAN_KB=${MEDIAN_KB:-8}
WORK=${WORK:-/tmp/rsgen-bench-cache}
corpus=$WORK/corpus-$N-${MEDIAN_KB}k
mkdir -p "$WORK"

if [ ! -f "$corpus/.complete" ]; then
  echo "== generating $N files under $corpus"
  rm -rf "$corpus"
  /usr/bin/python3 - "$corpus" "$N" "$MEDIAN_KB" <<'PY'
import math, os, random, sys
# A site's mix: mostly small pages and records, some documents and images.
# Sizes are log-normal around the median (the mean is about twice it),
# capped at 4 MiB (64 MiB past a median of 256 KiB).
root, n, median = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) * 1024
cap = 4 << 20 if median <= 256 * 1024 else 64 << 20
rnd = random.Random(1)
block = rnd.randbytes(cap)
exts = [".html"] * 5 + [".json", ".xml", ".txt", ".pdf", ".jpg"]
for i in range(n):
    d = os.path.join(root, "c%02d" % (i % 20), "s%03d" % (i // 20 % 50))
    if i < 1000:
        os.makedirs(d, exist_ok=True)
    size = min(int(rnd.lognormvariate(math.log(median), 1.2)), cap)
    off = rnd.randrange(0, len(block) - size + 1)
    with open(os.path.join(d, "f%06d%s" % (i, exts[i % len(exts)])), "wb") as f:
        f.write(b"%d\n" % i)
        f.write(block[off:off + size])
open(os.path.join(root, ".complete"), "w").close()
PY
fi
echo "== corpus: $(find "$corpus" -type f ! -name .complete | wc -l) files, $(du -sh --apparent-size "$corpus" | cut -f1)"

go build -o "$WORK/rsgen" ./cmd/rsgen
rsgen=("$WORK/rsgen" build -q --base-url https://example.org/ --at 2024-06-01T00:00:00Z --exclude .complete)

# Read the corpus once, so that every timed build starts with it in the
# page cache.
find "$corpus" -type f -print0 | xargs -0 cat > /dev/null

# measure runs "$@" and prints its wall time and its CPU time (user and
# system) in seconds. On a machine shared with other work, CPU time is the
# steadier of the two.
measure() {
  local TIMEFORMAT='%R %U %S' out
  out=$( { time "$@" >/dev/null; } 2>&1 )
  awk '{ printf "%.2f %.2f\n", $1, $2 + $3 }' <<<"$out"
}
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

pw=() pc=() cw=() cc=() ww=() wc=()
for run in $(seq "$RUNS"); do
  rm -rf "$WORK/out" "$WORK/cache"
  read -r w c < <(measure "${rsgen[@]}" --out "$WORK/out" "$corpus"); pw+=("$w") pc+=("$c")
  rm -rf "$WORK/out"
  read -r w c < <(measure "${rsgen[@]}" --out "$WORK/out" --cache "$WORK/cache" "$corpus"); cw+=("$w") cc+=("$c")
  cp -r "$WORK/out" "$WORK/out-cold"
  read -r w c < <(measure "${rsgen[@]}" --out "$WORK/out" --cache "$WORK/cache" "$corpus"); ww+=("$w") wc+=("$c")
  if ! diff -r "$WORK/out-cold" "$WORK/out" >/dev/null; then
    echo "FAIL: the warm build published other bytes than the cold one" >&2
    exit 1
  fi
  rm -rf "$WORK/out-cold"
  printf 'run %d (wall/CPU s): no cache %s/%s, cold %s/%s, warm %s/%s\n' "$run" "${pw[-1]}" "${pc[-1]}" "${cw[-1]}" "${cc[-1]}" "${ww[-1]}" "${wc[-1]}"
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
PW=$(median "${pw[@]}") PC=$(median "${pc[@]}") CW=$(median "${cw[@]}") CC=$(median "${cc[@]}") WW=$(median "${ww[@]}") WC=$(median "${wc[@]}")
printf '\nmedian of %d runs, %d files, %s cores, load average %s:\n' "$RUNS" "$N" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '                      wall s    CPU s\n'
printf '  no --cache         %7.2f  %7.2f\n' "$PW" "$PC"
printf '  --cache, cold      %7.2f  %7.2f\n' "$CW" "$CC"
printf '  --cache, warm      %7.2f  %7.2f   (warm/cold: %s wall, %s CPU)\n' "$WW" "$WC" "$(ratio "$WW" "$CW")" "$(ratio "$WC" "$CC")"
printf '  cache file         %s\n' "$(du -h "$WORK/cache" | cut -f1)"
