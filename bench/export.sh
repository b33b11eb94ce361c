#!/usr/bin/env bash
# Times 'rsgen build --export' over a generated JSON Lines export whose
# records give their digests (nothing to hash): 3 runs, the median, with
# the peak memory of each (GNU time). Numbers go to docs/PERFORMANCE.md,
# section "Record exports".
#
#   bench/export.sh            1,000,000 records
#   N=200000 bench/export.sh   fewer
#
# Needs bash, go, awk, coreutils and /usr/bin/time (Debian package "time").
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
n=${N:-1000000}
runs=${RUNS:-3}
work=$(mktemp -d "${TMPDIR:-/tmp}/rsgen-bench-export.XXXXXX")
trap 'rm -rf "$work"' EXIT
[ -x /usr/bin/time ] || { echo "bench: error: /usr/bin/time (GNU time) is needed for the peak memory" >&2; exit 1; }

(cd "$repo" && go build -o "$work/rsgen" ./cmd/rsgen)

# The export: locs in an order unrelated to their sort order (7919 is
# prime to 10^k, so i*7919 mod n visits every id once), times spread over
# 400 days before the snapshot (about 7.5% in the 30-day window), 5%
# tombstones, 2% drafts, a sha-256 and a length for every live record.
awk -v n="$n" 'BEGIN {
  srand(1)
  at = 1717200000   # 2024-06-01T00:00:00Z
  for (i = 0; i < n; i++) {
    id = (i * 7919) % n
    t = at - (id * 34567) % (400 * 86400)
    lm = strftime("%Y-%m-%dT%H:%M:%SZ", t, 1)
    if (id % 20 == 7) {
      printf "{\"loc\":\"https://example.org/records/%d\",\"deleted\":\"%s\"}\n", id, lm
      continue
    }
    status = (id % 50 == 3) ? "draft" : "published"
    created = (id % 3 == 0) ? lm : strftime("%Y-%m-%dT%H:%M:%SZ", t - 86400 * (id % 97), 1)
    printf "{\"loc\":\"https://example.org/records/%d\",\"lastmod\":\"%s\",\"created\":\"%s\",\"status\":\"%s\",", id, lm, created, status
    printf "\"hash\":\"sha-256:%08x%08x%08x%08x%08x%08x%08x%08x\",\"length\":%d,\"type\":\"text/html\"}\n", id, id * 3 % 4294967296, id * 5 % 4294967296, id * 7 % 4294967296, id * 11 % 4294967296, id * 13 % 4294967296, id * 17 % 4294967296, id * 19 % 4294967296, 1000 + id % 50000
  }
}' > "$work/records.jsonl"
size=$(du -h "$work/records.jsonl" | cut -f1)
echo "bench: $n records, $size of JSON Lines; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2

times=()
for run in $(seq "$runs"); do
  rm -rf "$work/out"
  /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$work/rsgen" build -q --out "$work/out" \
    --export "$work/records.jsonl" --base-url https://example.org/ --at 2024-06-01T00:00:00Z
  read -r secs user sys kib < "$work/time"
  echo "bench: run $run: ${secs}s wall, ${user}s user + ${sys}s system CPU, peak RSS $((kib / 1024)) MiB" >&2
  times+=("$secs")
done
median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
docs=$(find "$work/out/resourcesync" -name '*.xml' | wc -l)
echo "records=$n median_s=$median records_per_s=$(awk -v n="$n" -v s="$median" 'BEGIN {printf "%d", n / s}') documents=$docs"
