#!/usr/bin/env bash
# Lines of non-test product Go, as issue 25 counts them: cmd, generator,
# hashing, zipdump, validate, hosting, internal, templates; tests, test
# helpers (internal/testenv, */*test packages, internal/corpus: used only by
# benchmarks), testdata and the release
# test excluded. Packages named in BUCKET (the object-store source of
# issue 23) are counted apart. `bench/loc.sh -v` lists every package.
set -euo pipefail
cd "$(dirname "$0")/.."
bucket='(^|/)(bucket|bucketscan|inventory)(/|$)'
find cmd generator hashing zipdump validate hosting internal templates -name '*.go' ! -name '*_test.go' |
  grep -v -E '/testdata/|internal/testenv|internal/corpus|test/|internal/release' |
  awk -v b="$bucket" -v verbose="${1:-}" '
    { f = $0; d = f; sub(/\/[^\/]*$/, "", d); n = 0
      while ((getline line < f) > 0) n++
      close(f)
      if (d ~ b) bucketn += n; else { total += n; per[d] += n } }
    END {
      if (verbose == "-v") for (d in per) printf "%6d %s\n", per[d], d | "sort -rn"
      close("sort -rn")
      printf "%d product lines", total
      if (bucketn) printf " (+%d bucket source)", bucketn
      printf "\n" }'
