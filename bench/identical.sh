#!/usr/bin/env bash
# identical.sh OLD NEW: runs the same battery of builds with two rsgen
# binaries, each in a directory of its own, and compares what they
# published, byte for byte. It exits 1 on a difference (printing it), 0 when
# the outputs are identical: the check that a change of the code changed
# no published byte (issue 25). The battery covers a tree with every
# digest, dumps, change lists, change dumps and archives, every host; a
# tree changed between builds; tar.gz and zip archives as sources; an
# export with local files; several sets from a configuration file. Every
# time is fixed (--at, file times), so two runs of one binary agree.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[ $# -eq 2 ] || die "usage: identical.sh OLD-RSGEN NEW-RSGEN"
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT

# inputs DIR writes the sources of the battery into DIR.
inputs() {
  local in=$1
  mkdir -p "$in"
  cp -r "$repo/testdata/site" "$in/tree"
  cp -r "$in/tree" "$in/tree2"
  echo changed >"$in/tree2/index.html"
  echo new >"$in/tree2/new.txt"
  rm -f "$in"/tree2/data/*.csv
  mkdir -p "$in/sets/a" "$in/sets/d"
  cp -r "$in"/tree/articles/. "$in/sets/a/"
  cp -r "$in"/tree/data/. "$in/sets/d/"
  cat >"$in/sets/rsgen.toml" <<'EOF'
out = "out"
docs-url = "https://example.org/"
describedby = "https://example.org/about.html"
previous = "out"
first-build-ok = true
hash = "sha-256,md5"
host = "netlify,nginx"

[[set]]
name = "articles"
source = "a"
base-url = "https://example.org/articles/"
resource-dump = true

[[set]]
name = "data"
source = "d"
base-url = "https://example.org/data/"
EOF
  mkdir -p "$in/export/files"
  printf 'one\n' >"$in/export/files/one.txt"
  printf '%%PDF-1.4 two\n' >"$in/export/files/two.pdf"
  cat >"$in/export/recs.jsonl" <<'EOF'
{"loc":"r/1","lastmod":"2024-05-01T10:11:12Z","path":"files/one.txt"}
{"loc":"r/2","lastmod":"2024-05-02T10:11:12Z","path":"files/two.pdf","hash":"sha-256:7d1d3f5a2d5c6e2e4b1c5f0f7b0a7e0c2d3b4a5968778695a4b3c2d1e0f1a2b3 xx-9:0102"}
{"loc":"r/3","lastmod":"2024-05-03T10:11:12Z","type":"text/html","hash":"MD5:1584ABDF8EBDC9802AC0C6A7402C03B6 foo:abcdef","length":12}
{"loc":"r/4","lastmod":"2024-05-04T10:11:12Z","hash":"sha-256:854f61290e2e197a11bc91063afce22e43f8ccc655237050ace766adc68dc784","length":3}
EOF
  echo '{"loc":"r/5","path":"files/one.txt","hash":"md5:'"$(md5sum <"$in/export/files/one.txt" | cut -c1-32)"' xx-9:0102"}' >>"$in/export/recs.jsonl"
  grep -v '"r/3"' "$in/export/recs.jsonl" >"$in/export/recs2.jsonl"
  grep '"path"' "$in/export/recs.jsonl" >"$in/export/files.jsonl"
  # Keys of the configuration file that are no flags (issue 25), for both.
  printf 'export = "recs2.jsonl"\nchanges-window = "720h"\nskip-bad-records = true\n' >"$in/export/window.toml"
  find "$in" -exec touch -d 2026-01-02T12:00:00Z {} +
  (cd "$in/tree" && tar -czf ../tree.tar.gz --mtime=2026-01-02T12:00:00Z --sort=name --owner=0 --group=0 . &&
    zip -qrX ../tree.zip .)
  (cd "$in/tree2" && zip -qrX ../tree2.zip .)
}

# battery BIN DIR runs the builds with BIN, their output into DIR/out.
battery() {
  local bin=$1 in=$2/in o=$2/out
  local b=(build --base-url https://example.org/ -q)
  local t1=(--at 2026-01-02T03:04:05Z) t2=(--at 2026-01-03T03:04:05Z) t3=(--at 2026-01-04T03:04:05Z)
  local hosts=(--host github-pages,netlify,cloudflare,nginx,apache,s3)
  local all=(--hash sha-256,md5,blake3,sha-1)
  # Flags that issue 25 folded into one (--archive, --on-error), given to
  # each binary as it takes them: the same settings either way.
  local archive=(--archive 24h,lists=1h,dumps=1h) skip=(--on-error=skip)
  if [[ $("$bin" build --help) == *--archive-keep* ]]; then
    archive=(--archive-keep 24h --archive-resource-lists 1h --archive-resource-dumps 1h) skip=(--skip-bad-records)
  fi
  inputs "$in"
  mkdir -p "$o"
  "$bin" "${b[@]}" "${t1[@]}" --out "$o/plain" "$in/tree"
  "$bin" "${b[@]}" "${t1[@]}" --out "$o/hash" "${all[@]}" --resource-dump "${hosts[@]}" "$in/tree"
  cp -r "$o/hash" "$o/hash2"
  "$bin" "${b[@]}" "${t2[@]}" --out "$o/hash2" "${all[@]}" --resource-dump --change-dump --previous "$o/hash" \
    --changes-keep 1h "${archive[@]}" "${hosts[@]}" "$in/tree2"
  cp -r "$o/hash2" "$o/hash3"
  "$bin" "${b[@]}" "${t3[@]}" --out "$o/hash3" "${all[@]}" --resource-dump --change-dump --previous "$o/hash2" \
    --changes-keep 1h "${archive[@]}" "${hosts[@]}" "$in/tree2"
  # A build with fewer digests than its previous build (read again for them).
  cp -r "$o/hash3" "$o/fewer"
  "$bin" "${b[@]}" "${t3[@]}" --out "$o/fewer" --hash md5 --resource-dump --change-dump --previous "$o/hash3" \
    --changes-keep 1h "${archive[@]}" "$in/tree2"
  "$bin" "${b[@]}" "${t1[@]}" --out "$o/tgz" --resource-dump "$in/tree.tar.gz"
  "$bin" "${b[@]}" "${t1[@]}" --out "$o/zip" "${all[@]}" --resource-dump "$in/tree.zip"
  cp -r "$o/zip" "$o/zip2"
  "$bin" "${b[@]}" "${t2[@]}" --out "$o/zip2" "${all[@]}" --resource-dump --previous "$o/zip" \
    --changes-keep 1h "$in/tree2.zip"
  (cd "$in/export" && "$bin" "${b[@]}" "${t1[@]}" --out "$o/exportdump" --hash sha-256,md5 --resource-dump \
    "${skip[@]}" --export files.jsonl 2>"$o/exportdump.stderr") || echo "exportdump: exit $?" >>"$o/exit.txt"
  (cd "$in/export" && "$bin" "${b[@]}" "${t1[@]}" --out "$o/export" --hash sha-256,md5 \
    "${skip[@]}" --export recs.jsonl 2>"$o/export.stderr") || echo "export: exit $?" >>"$o/exit.txt"
  cp -r "$o/export" "$o/export2"
  (cd "$in/export" && "$bin" "${b[@]}" "${t2[@]}" --out "$o/export2" --hash sha-256,md5 \
    --config window.toml 2>"$o/export2.stderr") || echo "export2: exit $?" >>"$o/exit.txt"
  "$bin" build -q --config "$in/sets/rsgen.toml" "${t1[@]}"
  echo changed >"$in/sets/a/$(ls "$in/sets/a" | head -1)"
  touch -d 2026-01-02T12:00:00Z "$in/sets/a"/*
  "$bin" build -q --config "$in/sets/rsgen.toml" "${t2[@]}"
  mv "$in/sets/out" "$o/sets"
  # A hint names the flag that replaced --skip-bad-records.
  [ "${skip[0]}" = --on-error=skip ] || sed -i 's/--skip-bad-records/--on-error=skip/g' "$o"/*.stderr
  for d in "$o"/*/; do
    "$bin" validate "$d" >"${d%/}.validate.txt" 2>&1 || echo "exit $?" >>"${d%/}.validate.txt"
  done
}

old=$(realpath "$1") new=$(realpath "$2")
for side in old new; do
  bin=${!side}
  note "running the battery with $bin"
  battery "$bin" "$work/$side" >"$work/$side.log" 2>&1 & # not in a || list: set -e holds
  wait $! || {
    cat "$work/$side.log" >&2
    die "the battery failed with $bin"
  }
done
if ! diff -r "$work/old/out" "$work/new/out"; then
  die "the outputs differ"
fi
n=$(find "$work/old/out" -type f | wc -l)
note "identical: $n files"
