#!/usr/bin/env bash
# Times `rsgen build --resource-dump` against `zip -r -q` and `zip -0 -r -q`
# on the same corpus, in the same run, and prints a table of medians.
#
#   bench/dump.sh [WORKDIR]      (default: a new directory under ${TMPDIR:-/tmp})
#
# The corpus (about 280 MB) is made once in WORKDIR/corpus and reused:
#   text/   a copy of $(go env GOROOT)/src: ~11,000 source files, 157 MB of real text
#   noise/  40 incompressible files of 1 MiB, named .bin (rsgen's auto mode probes them)
#   media/  40 incompressible files of 1 MiB, named .jpg (stored by type)
#   large/  one 32 MiB text file (Go source, concatenated) and one 32 MiB random .bin
# Every command runs RUNS times (default 3), in rounds, with the page cache
# warmed the same way before each run (every file read once); medians are
# reported.
# Needs: go, zip, bc, GNU time (/usr/bin/time), and openssl for reproducible
# random files (/dev/urandom without it).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
work=${1:-$(mktemp -d "${TMPDIR:-/tmp}/rsgen-bench.XXXXXX")}
corpus=$work/corpus
mkdir -p "$work"

for tool in zip bc /usr/bin/time; do command -v "$tool" >/dev/null || { echo "bench/dump.sh: needs $tool" >&2; exit 1; }; done

if [ ! -f "$corpus/.done" ]; then
  echo "== making the corpus in $corpus"
  rm -rf "$corpus"; mkdir -p "$corpus/noise" "$corpus/media" "$corpus/large"
  cp -r "$(go env GOROOT)/src" "$corpus/text"
  # Deterministic incompressible bytes: AES-CTR of zeros with a fixed key.
  # (head closes the pipe early: the writer's SIGPIPE is expected.)
  rnd() { openssl enc -aes-128-ctr -nosalt -pass pass:"rsgen-$1" -pbkdf2 </dev/zero 2>/dev/null | head -c "$2" || true; }
  if ! command -v openssl >/dev/null; then rnd() { head -c "$2" /dev/urandom; }; fi
  for i in $(seq -w 1 40); do
    rnd "n$i" $((1 << 20)) >"$corpus/noise/$i.bin"
    rnd "m$i" $((1 << 20)) >"$corpus/media/$i.jpg"
  done
  find "$(go env GOROOT)/src" -name '*.go' -print0 | sort -z | xargs -0 cat | head -c $((32 << 20)) >"$corpus/large/source.txt" || true
  rnd large $((32 << 20)) >"$corpus/large/noise.bin"
  touch "$corpus/.done"
fi
files=$(find "$corpus" -type f ! -name .done | wc -l)
bytes=$(find "$corpus" -type f ! -name .done -printf '%s\n' | awk '{s+=$1} END {print s}')

echo "== building rsgen"
go build -o "$work/rsgen" ./cmd/rsgen

warm() { find "$corpus" -type f ! -name .done -print0 | xargs -0 cat >/dev/null; }

# The commands, run in rounds: each round runs every command once, after
# warming the page cache the same way, so that a change of load on a shared
# machine affects them all alike. Recorded per run: wall time, CPU time
# (user+system; on a shared machine the steadier figure) and peak resident
# memory; per command, the medians, and the size of its output.
export work corpus
rsgen="\"\$work/rsgen\" build --base-url https://example.org/ --out \"\$work/out\" --at 2024-01-01T00:00:00Z -q"
zips='$work/out/resourcesync/resourcedump-*.zip'
names=() outs=() cmds=()
add() { names+=("$1"); outs+=("$2"); cmds+=("$3"); }
add "cat of every file into one (the disk-write floor)" '$work/copy.bin' 'find "$corpus" -type f ! -name .done -print0 | xargs -0 cat >"$work/copy.bin"'
add "rsgen build (Resource List only)" "" "$rsgen \"\$corpus\""
add "rsgen build --resource-dump" "$zips" "$rsgen --resource-dump \"\$corpus\""
# dump-compression is a key of the configuration file (a file of one set).
for how in deflate store; do
  printf 'source = "%s"\ndump-compression = "%s"\n' "$corpus" "$how" >"$work/$how.toml"
done
add "rsgen build --resource-dump, dump-compression = deflate" "$zips" "$rsgen --resource-dump --config \"\$work/deflate.toml\""
add "zip -r -q" '$work/zip.zip' 'cd "$corpus" && exec zip -r -q "$work/zip.zip" .'
add "rsgen build --resource-dump, dump-compression = store" "$zips" "$rsgen --resource-dump --config \"\$work/store.toml\""
add "zip -0 -r -q" '$work/zip.zip' 'cd "$corpus" && exec zip -0 -r -q "$work/zip.zip" .'

echo "== timing: $RUNS rounds of ${#cmds[@]} commands; corpus: $files files, $bytes bytes"
declare -a walls cpus rsss sizes
for round in $(seq "$RUNS"); do
  for i in "${!cmds[@]}"; do
    rm -rf "$work/out" "$work/zip.zip" "$work/copy.bin"
    warm
    /usr/bin/time -f '%e %U %S %M' -o "$work/time" bash -c "${cmds[$i]}" >/dev/null
    read -r e u s m <"$work/time"
    walls[i]+="$e "
    cpus[i]+="$(echo "$u + $s" | bc -l) "
    rsss[i]+="$m "
    sizes[i]=0
    [ -n "${outs[$i]}" ] && sizes[i]=$(eval "find ${outs[$i]} -type f -printf '%s\n'" | awk '{s+=$1} END {print s+0}')
  done
  echo "   round $round done"
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
rows=()
for i in "${!cmds[@]}"; do
  wall=$(echo "${walls[$i]}" | median)
  cpu=$(echo "${cpus[$i]}" | median)
  rss=$(echo "${rsss[$i]}" | median)
  rows+=("$(printf '| %s | %.2f | %.0f | %.2f | %.0f | %d | %s|' "${names[$i]}" "$wall" "$(echo "$bytes / $wall / 1000000" | bc -l)" "$cpu" "$(echo "$rss / 1024" | bc -l)" "${sizes[$i]}" "${walls[$i]}")")
done

echo
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "corpus:  $files files, $bytes bytes; median of $RUNS rounds, page cache warm"
echo
echo "| command | wall s | MB/s | CPU s | peak RSS MiB | output bytes | wall s of each run |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | --- |"
printf '%s\n' "${rows[@]}"
rm -rf "$work/out" "$work/zip.zip" "$work/copy.bin"
