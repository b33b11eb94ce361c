#!/usr/bin/env bash
# bench/scale.sh: how rsgen's peak memory and time grow with the size of
# the collection, in each mode of `rsgen build` (issue 11). For each size
# it generates a tree of files of 0-2 KiB, 1,000 per directory (reused
# with -d), and runs each mode once, printing one row:
#
#   size  mode  rev  peak-RSS-MB  wall-s  user-s  sys-s
#
# measured with GNU time (Debian package "time"). With -b REV, the same
# runs of rsgen built from REV (a baseline) are interleaved with this
# checkout's, mode by mode, so that both see the same machine load.
#
# Usage: bench/scale.sh [-d DIR] [-s "SIZES"] [-m "MODES"] [-b REV]
#   -s  sizes, default "100000 1000000"; 2400000 (issue 11's corpus, 9.3 GB)
#       and more take long: about a minute a mode at 2.4M files
#   -m  modes, default all of: tree cache previous cache-previous
#       previous-url changed change-dump resource-dump tar export; previous
#       and change-dump rebuild the output of tree, cache-previous and
#       changed that of cache, so give those first
#   -d  keep corpora and outputs in DIR and reuse them (default: a
#       temporary directory, removed at the end)
#
# Needs bash, go, git, python3 (the server of previous-url), tar, awk,
# coreutils and GNU time.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

sizes="100000 1000000"
modes="tree cache previous cache-previous previous-url changed change-dump resource-dump tar export"
dir="" base=""
while getopts "d:s:m:b:" opt; do
  case $opt in
  d) dir=$OPTARG ;; s) sizes=$OPTARG ;; m) modes=$OPTARG ;; b) base=$OPTARG ;;
  *) die "usage: $0 [-d DIR] [-s SIZES] [-m MODES] [-b REV]" ;;
  esac
done
[ -x /usr/bin/time ] || die "GNU time is needed: apt-get install time"
keep=1
if [ -z "$dir" ]; then
  dir=$(mktemp -d "${TMPDIR:-/var/tmp}/rsgen-scale.XXXXXX")
  keep=0
fi
mkdir -p "$dir"
server=""
cleanup() {
  [ -z "$server" ] || kill "$server" 2>/dev/null || true
  [ -z "$base" ] || git -C "$repo" worktree remove --force "$dir/base-src" 2>/dev/null || true
  [ "$keep" = 1 ] || rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
trap 'echo "bench: error: stopped at line $LINENO" >&2' ERR

build_tools "$dir/bin/new"
revs=(new)
if [ -n "$base" ]; then
  rm -rf "$dir/base-src"
  git -C "$repo" worktree add -q --detach "$dir/base-src" "$base" || die "no revision $base"
  (cd "$dir/base-src" && go build -o "$dir/bin/base/rsgen" ./cmd/rsgen) || die "go build of $base failed"
  revs=(base new)
fi

note "machine:"
machine "$dir" >&2
printf '%-9s %-15s %-5s %8s %8s %8s %8s\n' size mode rev rss-MB wall-s user-s sys-s

# run SIZE MODE REV ARGS...: one timed build, one row. Builds take the
# clock's time, so that outputs kept with -d stay earlier than the next run.
run() {
  local size=$1 mode=$2 rev=$3
  shift 3
  /usr/bin/time -f "%M %e %U %S" -o "$dir/time" "$dir/bin/$rev/rsgen" build -q --hash sha-256 "$@" \
    >"$dir/log" 2>&1 || { cat "$dir/log" >&2; die "$mode at $size files ($rev): rsgen build failed"; }
  read -r kib wall user sys <"$dir/time"
  printf '%-9s %-15s %-5s %8d %8s %8s %8s\n' "$size" "$mode" "$rev" $((kib / 1024)) "$wall" "$user" "$sys"
}

# free_port prints a TCP port that nothing listens on.
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

for size in $sizes; do
  src=$dir/c-$size
  if [ ! -d "$src" ]; then
    note "writing $size files of 0-2 KiB into $src"
    "$dir/bin/new/gencorpus" -out "$src" -files "$size" -min 0 -max 2KiB -per-dir 1000
  fi
  url=https://example.org/
  for mode in $modes; do
    case $mode in
    changed)
      # arXiv's daily rate: 2,000 files get new bytes, the same for every rev.
      # (awk reads to the end: head would stop find with SIGPIPE, a failure under pipefail)
      find "$src" -type f | awk 'NR % 97 == 0 && ++n <= 2000' | while read -r f; do echo "changed $(date +%s%N)" >>"$f"; done ;;
    tar)
      [ -f "$dir/c-$size.tar" ] || tar -cf "$dir/c-$size.tar" -C "$dir" "c-$size" ;;
    export)
      [ -f "$dir/c-$size.jsonl" ] || awk -v n="$size" 'BEGIN {
        for (i = 0; i < n; i++)
          printf "{\"loc\":\"https://example.org/records/%d\",\"lastmod\":\"2024-05-01T00:00:00Z\",\"hash\":\"sha-256:%064d\",\"length\":%d,\"type\":\"text/html\"}\n", i * 7919 % n, i, 1000 + i % 5000
      }' >"$dir/c-$size.jsonl" ;;
    esac
    for rev in "${revs[@]}"; do
      out=$dir/out-$size-$rev
      case $mode in
      tree) rm -rf "$out-tree" && run "$size" "$mode" "$rev" "$src" --base-url "$url" --out "$out-tree" ;;
      cache) rm -rf "$out-cache" "$out.cache" && run "$size" "$mode" "$rev" "$src" --base-url "$url" --out "$out-cache" --cache "$out.cache" ;;
      previous | change-dump | cache-previous | changed)
        [ -d "$out-tree" ] || [ "$mode" = cache-previous ] || [ "$mode" = changed ] || die "$mode needs the mode tree before it"
        [ -d "$out-cache" ] || [ "$mode" = previous ] || [ "$mode" = change-dump ] || die "$mode needs the mode cache before it" ;;&
      previous) run "$size" "$mode" "$rev" "$src" --base-url "$url" --out "$out-tree" --previous "$out-tree" ;;
      cache-previous | changed)
        run "$size" "$mode" "$rev" "$src" --base-url "$url" --out "$out-cache" --cache "$out.cache" --previous "$out-cache" ;;
      previous-url)
        port=$(free_port)
        rm -rf "$out-url"
        "$dir/bin/$rev/rsgen" build -q --hash sha-256 "$src" --base-url "http://127.0.0.1:$port/" --out "$out-url" \
          || die "previous-url at $size files ($rev): the first build failed"
        (cd "$out-url" && exec python3 -m http.server "$port" --bind 127.0.0.1 >/dev/null 2>&1) &
        server=$!
        for _ in $(seq 50); do curl -sf -o /dev/null "http://127.0.0.1:$port/.well-known/resourcesync" && break; sleep 0.1; done
        run "$size" "$mode" "$rev" "$src" --base-url "http://127.0.0.1:$port/" --out "$out-url2" --previous "http://127.0.0.1:$port/"
        kill "$server"
        wait "$server" 2>/dev/null || true
        server="" ;;
      change-dump) run "$size" "$mode" "$rev" "$src" --base-url "$url" --out "$out-tree" --previous "$out-tree" --change-dump ;;
      resource-dump) rm -rf "$out-dump" && run "$size" "$mode" "$rev" "$src" --base-url "$url" --out "$out-dump" --resource-dump ;;
      tar) rm -rf "$out-tar" && run "$size" "$mode" "$rev" "$dir/c-$size.tar" --base-url "$url" --out "$out-tar" ;;
      export) rm -rf "$out-export" && run "$size" "$mode" "$rev" --export "$dir/c-$size.jsonl" --base-url "$url" --out "$out-export" ;;
      *) die "unknown mode $mode" ;;
      esac
    done
  done
done
