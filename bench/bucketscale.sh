#!/usr/bin/env bash
# bench/bucketscale.sh: a bucket as SOURCE at scale (docs/BUCKETS.md), on a
# fake S3 endpoint (bench/s3fake: N synthetic objects with stored SHA-256
# checksums, folders of 1,000, nothing stored), since filling a real server
# with a million objects takes hours here. Runs a first build (sha-256 from
# the store: a listing and one HeadObject per object) and an unchanged
# rebuild with --cache (a listing only), each under GNU time, and prints
# wall, CPU, peak RSS and the requests per 1,000 objects the endpoint
# answered, as Markdown; with -a, `aws s3 ls --recursive` of the same
# bucket too. With -b BYTES, the first object is of that size (10 GiB:
# -b 10737418240) and as if uploaded in parts: it is read, streamed, and
# its digest checked.
#
# Usage: bench/bucketscale.sh [-n OBJECTS] [-b BYTES] [-d DIR] [-a] [-k]
set -euo pipefail
source "$(dirname "$0")/lib.sh"

n=100000 big=0 dir="" withls=0 keep=0
while getopts "n:b:d:ak" opt; do
  case $opt in
  n) n=$OPTARG ;; b) big=$OPTARG ;; d) dir=$OPTARG ;; a) withls=1 ;; k) keep=1 ;;
  *) die "usage: $0 [-n OBJECTS] [-b BYTES] [-d DIR] [-a] [-k]" ;;
  esac
done
[ -x /usr/bin/time ] || die "GNU time not found (apt-get install time)"
[ -n "$dir" ] || dir=$(mktemp -d "${TMPDIR:-/var/tmp}/rsgen-bench.XXXXXX")
bin=$dir/bin
mkdir -p "$bin"
(cd "$repo" && go build -o "$bin/rsgen" ./cmd/rsgen && go build -o "$bin/s3fake" ./bench/s3fake) || die "go build failed"

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$bin/s3fake" -addr "127.0.0.1:$port" -bucket bench -prefix data/ -n "$n" -big "$big" 2>"$dir/s3fake.log" &
fake=$!
cleanup() { kill "$fake" 2>/dev/null || true; [ "$keep" = 1 ] || rm -rf "$dir"; }
trap cleanup EXIT
export AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=bench-secret AWS_DEFAULT_REGION=us-east-1 AWS_EC2_METADATA_DISABLED=true \
  AWS_CONFIG_FILE=$dir/aws-config AWS_SHARED_CREDENTIALS_FILE=$dir/aws-credentials AWS_PAGER= \
  AWS_ENDPOINT_URL_S3=http://127.0.0.1:$port
for _ in $(seq 100); do (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done

stats() { python3 -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1]).read().decode(), end="")' "$AWS_ENDPOINT_URL_S3/_stats"; }
# run NAME CMD... runs CMD under GNU time and prints a row: wall s, CPU s,
# peak RSS MiB, and the requests it sent per 1,000 objects.
run() {
  local name=$1 before after
  shift
  before=$(stats)
  /usr/bin/time -f "%e %U %S %M" -o "$dir/time" "$@" >/dev/null 2>"$dir/err" || { cat "$dir/err" >&2; die "failed: $*"; }
  after=$(stats)
  read -r wall user sys rss <"$dir/time"
  reqs=$(paste <(echo "$before") <(echo "$after") | awk -v n="$n" '{d = $4 - $2; if (d) printf "%s%s %.2f", sep, $1, d * 1000 / n; if (d) sep = ", "}')
  echo "| $name | $wall s | $(awk -v u="$user" -v s="$sys" 'BEGIN {printf "%.2f", u + s}') s | $((rss / 1024)) MiB | ${reqs:-none} |"
}
build=("$bin/rsgen" build s3://bench/data/ --base-url https://example.org/data/ --out "$dir/out" --cache "$dir/cache" --hash sha-256 -q)

note "$n objects (load $(loadavg))"
echo "$n objects on bench/s3fake$([ "$big" = 0 ] || echo ", the first of $big bytes") (load at the start: $(loadavg))"
echo
echo "| | wall | CPU | peak RSS | requests per 1,000 objects |"
echo "|---|---|---|---|---|"
if [ "$withls" = 1 ]; then
  aws=/usr/bin/aws
  [ -x "$aws" ] || aws=$(command -v aws) || die "the AWS CLI not found (apt-get install awscli)"
  run "aws s3 ls --recursive" "$aws" --endpoint-url "$AWS_ENDPOINT_URL_S3" s3 ls --recursive s3://bench/data/
fi
run "rsgen build, first (sha-256 stored)" "${build[@]}"
[ "$(grep -c '<url>' "$dir"/out/resourcesync/resourcelist*.xml | awk -F: '{s += $NF} END {print s}')" = "$n" ] || die "the Resource List does not have $n entries"
if [ "$big" != 0 ]; then
  want=$("$bin/s3fake" -big "$big" -sum-big)
  grep -A3 '/d0000/f0000000.bin<' "$dir"/out/resourcesync/resourcelist*.xml | grep -q "sha-256:$want" ||
    die "the digest of the object of $big bytes is not $want"
fi
run "rsgen build, unchanged, --cache" "${build[@]}"
echo
echo "(load at the end: $(loadavg))"
machine "$dir"
