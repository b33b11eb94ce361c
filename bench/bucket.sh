#!/usr/bin/env bash
# bench/bucket.sh: a bucket as SOURCE (docs/BUCKETS.md) against `aws s3 ls
# --recursive` of the same bucket, on a versitygw server on 127.0.0.1: N
# objects with stored SHA-256 checksums in folders of 1,000; interleaved
# runs of the listing, a first build (sha-256 from the store: a listing and
# one HeadObject per object) and an unchanged rebuild with --cache (a
# listing only). Prints the medians of wall and CPU time, and rsgen's peak
# memory, as Markdown.
#
# Usage: bench/bucket.sh [-r RUNS] [-n OBJECTS] [-d DIR] [-k]
set -euo pipefail
source "$(dirname "$0")/lib.sh"

runs=3 n=10000 dir="" keep=0
while getopts "r:n:d:k" opt; do
  case $opt in
  r) runs=$OPTARG ;; n) n=$OPTARG ;; d) dir=$OPTARG ;; k) keep=1 ;;
  *) die "usage: $0 [-r RUNS] [-n OBJECTS] [-d DIR] [-k]" ;;
  esac
done
gw=$(command -v versitygw || echo "$(go env GOPATH)/bin/versitygw")
[ -x "$gw" ] || die "versitygw not found (go install github.com/versity/versitygw/cmd/versitygw@v1.8.0)"
aws=/usr/bin/aws
[ -x "$aws" ] || aws=$(command -v aws) || die "the AWS CLI not found (apt-get install awscli)"
[ -n "$dir" ] || dir=$(mktemp -d "${TMPDIR:-/var/tmp}/rsgen-bench.XXXXXX")
mkdir -p "$dir/store"
bin=$dir/bin
build_tools "$bin"
(cd "$repo" && go build -o "$bin/s3put" ./bench/s3put) || die "go build failed"

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$gw" --access bench --secret bench-secret --region us-east-1 --port "127.0.0.1:$port" --quiet posix "$dir/store" >"$dir/gw.log" 2>&1 &
gwpid=$!
cleanup() { kill "$gwpid" 2>/dev/null || true; [ "$keep" = 1 ] || rm -rf "$dir"; }
trap cleanup EXIT
export AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=bench-secret AWS_DEFAULT_REGION=us-east-1 AWS_EC2_METADATA_DISABLED=true \
  AWS_CONFIG_FILE=$dir/aws-config AWS_SHARED_CREDENTIALS_FILE=$dir/aws-credentials AWS_PAGER= \
  AWS_ENDPOINT_URL_S3=http://127.0.0.1:$port
for _ in $(seq 100); do (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
note "uploading $n objects"
"$bin/s3put" -endpoint "$AWS_ENDPOINT_URL_S3" -bucket bench -prefix data/ -n "$n"

build() { "$bin/rsgen" build s3://bench/data/ --base-url https://example.org/data/ --out "$dir/out" --cache "$dir/cache" --hash sha-256 -q; }
first() { rm -rf "$dir/out" "$dir/cache"; build; }
listing() { "$aws" --endpoint-url "$AWS_ENDPOINT_URL_S3" s3 ls --recursive s3://bench/data/; } # AWS_ENDPOINT_URL_S3 needs aws-cli 2.13
rss() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }

: >"$dir/ls" >"$dir/first" >"$dir/again"
for r in $(seq "$runs"); do
  note "run $r of $runs (load $(loadavg))"
  ms listing >>"$dir/ls"
  ms first >>"$dir/first"
  ms build >>"$dir/again"
done
rm -rf "$dir/out" "$dir/cache"
mem_first=$(rss "$bin/rsgen" build s3://bench/data/ --base-url https://example.org/data/ --out "$dir/out" --cache "$dir/cache" --hash sha-256 -q)
mem_again=$(rss "$bin/rsgen" build s3://bench/data/ --base-url https://example.org/data/ --out "$dir/out" --cache "$dir/cache" --hash sha-256 -q)

col() { cut -d' ' -f"$1" "$2" | median; }
echo "$n objects, median of $runs interleaved runs (load at the end: $(loadavg))"
echo
echo "| | wall ms | CPU ms | peak RSS KiB |"
echo "|---|---|---|---|"
echo "| aws s3 ls --recursive | $(col 1 "$dir/ls") | $(col 2 "$dir/ls") | |"
echo "| rsgen build, first (sha-256 stored) | $(col 1 "$dir/first") | $(col 2 "$dir/first") | $mem_first |"
echo "| rsgen build, unchanged, --cache | $(col 1 "$dir/again") | $(col 2 "$dir/again") | $mem_again |"
echo
machine "$dir"
