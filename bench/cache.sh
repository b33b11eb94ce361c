#!/usr/bin/env bash
# Times builds of an unchanged tree of 200,000 files with a cold and with a
# warm hash cache (--cache): median of 3 runs of each, in the same run, on
# the same corpus. The corpus is generated once under /tmp and reused.
#
#   bench/cache.sh              # N=200000 RUNS=3
#   N=20000 RUNS=5 bench/cache.sh
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
WORK=${WORK:-/tmp/rsgen-bench-cache}
corpus=$WORK/corpus-$N
mkdir -p "$WORK"

if [ ! -f "$corpus/.complete" ]; then
  echo "== generating $N files under $corpus"
  rm -rf "$corpus"
  /usr/bin/python3 - "$corpus" "$N" <<'PY'
import os, random, sys
# A site's mix: mostly small pages and records, some documents and images.
# Sizes are log-normal (median 8 KiB, mean about 16 KiB), capped at 4 MiB.
root, n = sys.argv[1], int(sys.argv[2])
rnd = random.Random(1)
block = rnd.randbytes(4 << 20)
exts = [".html"] * 5 + [".json", ".xml", ".txt", ".pdf", ".jpg"]
for i in range(n):
    d = os.path.join(root, "c%02d" % (i % 20), "s%03d" % (i // 20 % 50))
    if i < 1000:
        os.makedirs(d, exist_ok=True)
    size = min(int(rnd.lognormvariate(9.0, 1.2)), 4 << 20)
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

seconds() { # runs "$@" and prints its wall time in seconds
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >/dev/null
  t1=$(date +%s.%N)
  awk -v a="$t1" -v b="$t0" 'BEGIN { printf "%.3f\n", a - b }'
}
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

plain=() cold=() warm=()
for run in $(seq "$RUNS"); do
  rm -rf "$WORK/out" "$WORK/cache"
  plain+=("$(seconds "${rsgen[@]}" --out "$WORK/out" "$corpus")")
  rm -rf "$WORK/out"
  cold+=("$(seconds "${rsgen[@]}" --out "$WORK/out" --cache "$WORK/cache" "$corpus")")
  cp -r "$WORK/out" "$WORK/out-cold"
  warm+=("$(seconds "${rsgen[@]}" --out "$WORK/out" --cache "$WORK/cache" "$corpus")")
  if ! diff -r "$WORK/out-cold" "$WORK/out" >/dev/null; then
    echo "FAIL: the warm build published other bytes than the cold one" >&2
    exit 1
  fi
  rm -rf "$WORK/out-cold"
  printf 'run %d: no cache %.2fs, cold %.2fs, warm %.2fs\n' "$run" "${plain[-1]}" "${cold[-1]}" "${warm[-1]}"
done
p=$(median "${plain[@]}") c=$(median "${cold[@]}") w=$(median "${warm[@]}")
printf '\nmedian of %d runs, %d files (%s cores):\n' "$RUNS" "$N" "$(nproc)"
printf '  no --cache         %6.2f s\n' "$p"
printf '  --cache, cold      %6.2f s\n' "$c"
printf '  --cache, warm      %6.2f s   (%.3f of cold)\n' "$w" "$(awk -v a="$w" -v b="$c" 'BEGIN { print a / b }')"
printf '  cache file         %s\n' "$(du -h "$WORK/cache" | cut -f1)"
