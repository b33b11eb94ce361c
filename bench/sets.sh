#!/usr/bin/env bash
# bench/sets.sh: the cost of a configuration of many resource sets (issue
# 22, item 14). For each count of sets it writes a configuration file and
# small trees, one file a set, and runs `rsgen build --config` in each mode,
# printing one row:
#
#   sets  mode  rev  peak-RSS-MB  wall-s  user-s  sys-s
#
#   read    reading the file and checking every set, up to the build: the
#           file names a previous build that is missing, so it stops there
#   own     a full build, each set with a source of its own
#   shared  a full build, every set with the same source and an include of
#           its own part of it (include = ["s7/**"])
#
# measured with GNU time (Debian package "time"). With -b REV, the same
# runs of rsgen built from REV (a baseline) are interleaved with this
# checkout's, mode by mode, so that both see the same machine load.
#
# Usage: bench/sets.sh [-d DIR] [-n "COUNTS"] [-m "MODES"] [-b REV]
#   -n  counts of sets, default "1000 8000"
#   -m  modes, default "read own shared"
#   -d  keep the files in DIR (default: a temporary directory, removed)
set -euo pipefail
source "$(dirname "$0")/lib.sh"

counts="1000 8000" modes="read own shared" dir="" base=""
while getopts d:n:m:b: opt; do
  case $opt in
  d) dir=$OPTARG ;; n) counts=$OPTARG ;; m) modes=$OPTARG ;; b) base=$OPTARG ;;
  *) die "usage: bench/sets.sh [-d DIR] [-n COUNTS] [-m MODES] [-b REV]" ;;
  esac
done
[ -x /usr/bin/time ] || die "needs GNU time (/usr/bin/time)"
keep=$dir
[ -n "$dir" ] || dir=$(mktemp -d)
cleanup() {
  [ -z "$base" ] || git -C "$repo" worktree remove --force "$dir/base-src" 2>/dev/null || true
  [ -n "$keep" ] || rm -rf "$dir"
}
trap cleanup EXIT
mkdir -p "$dir"
build_tools "$dir/bin/new"
revs=(new)
if [ -n "$base" ]; then
  git -C "$repo" worktree remove --force "$dir/base-src" 2>/dev/null || rm -rf "$dir/base-src"
  git -C "$repo" worktree add -q --detach "$dir/base-src" "$base" || die "no revision $base"
  (cd "$dir/base-src" && go build -o "$dir/bin/base/rsgen" ./cmd/rsgen) || die "go build of $base failed"
  revs=(base new)
fi

# config N MODE writes the configuration of N sets in MODE and prints its path.
config() {
  local n=$1 mode=$2 f="$dir/sets-$1-$2.toml" i
  mkdir -p "$dir/src"
  {
    printf 'out = "out-%s-%s"\ndocs-url = "https://example.org/"\nhash = "sha-256"\n' "$n" "$mode"
    [ "$mode" != read ] || printf 'previous = "missing"\n'
    for ((i = 0; i < n; i++)); do
      [ -f "$dir/src/s$i/a.txt" ] || { mkdir -p "$dir/src/s$i" && echo "file $i" >"$dir/src/s$i/a.txt"; }
      if [ "$mode" = shared ]; then
        printf '\n[[set]]\nname = "s%d"\nsource = "src"\ninclude = ["s%d/**"]\nbase-url = "https://example.org/s%d/"\n' "$i" "$i" "$i"
      else
        printf '\n[[set]]\nname = "s%d"\nsource = "src/s%d"\nbase-url = "https://example.org/s%d/"\n' "$i" "$i" "$i"
      fi
    done
  } >"$f"
  echo "$f"
}

note "load average $(loadavg)"
for n in $counts; do
  for mode in $modes; do
    f=$(config "$n" "$mode")
    for rev in "${revs[@]}"; do
      rm -rf "$dir/out-$n-$mode"
      # read stops at the missing previous build: exit 1 is its end.
      /usr/bin/time -f "%M %e %U %S" -o "$dir/time" "$dir/bin/$rev/rsgen" build -q --config "$f" >/dev/null 2>&1 ||
        [ "$mode" = read ] || die "$rev: the build of $n sets ($mode) failed"
      read -r rss wall user sys < <(tail -n 1 "$dir/time") # after "Command exited with…"
      printf '%s\t%s\t%s\t%d\t%s\t%s\t%s\n' "$n" "$mode" "$rev" $((rss / 1024)) "$wall" "$user" "$sys"
    done
  done
done
note "load average $(loadavg)"
