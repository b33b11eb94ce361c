#!/usr/bin/env bash
# The GitHub Action of action.yml: install a released rsgen, verified
# against the release's checksums.txt, into the runner's tool cache, and
# run rsgen build with the action's inputs; write the outputs.
#
# Inputs, from action.yml: INPUT_VERSION (v0.1.0), INPUT_SOURCE, INPUT_BASE_URL,
# INPUT_OUT, INPUT_PREVIOUS, INPUT_ARGS (more arguments, split at spaces).
# From the runner: RUNNER_OS, RUNNER_ARCH, RUNNER_TOOL_CACHE, RUNNER_TEMP,
# GITHUB_OUTPUT, GITHUB_PATH. RSGEN_RELEASES is where the releases are
# downloaded from (default: GitHub's, https://github.com/rsgen/rsgen/releases/download):
# a mirror, or the tests' server of a snapshot.
#
# Outputs: exit-code (0; 3 when some files could not be read and the rest
# was published; 1 or 2 when nothing was), created, updated, deleted (the
# changes since --previous; empty without one), version. Any code but 0
# fails the step, as it fails rsgen build.
set -euo pipefail

fail() { echo "::error::rsgen action: $*" >&2; exit "${code:-1}"; }

version=${INPUT_VERSION:-}
[[ $version =~ ^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] ||
  fail "version '$version' is not a release tag such as v0.1.0: set the version input (rsgen has no 'latest' here: pin it)"
[ -n "${INPUT_SOURCE:-}" ] || fail "the source input is empty: give the directory to publish"

case "${RUNNER_OS:-}" in
  Linux) os=linux ;; macOS) os=darwin ;; Windows) os=windows ;;
  *) fail "runner OS '${RUNNER_OS:-}' has no rsgen release" ;;
esac
case "${RUNNER_ARCH:-}" in
  X64) arch=amd64 ;; ARM64) arch=arm64 ;;
  *) fail "runner architecture '${RUNNER_ARCH:-}' has no rsgen release" ;;
esac
ext=tar.gz exe=rsgen
[ "$os" = windows ] && ext=zip exe=rsgen.exe
archive="rsgen_${version#v}_${os}_${arch}.$ext"

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1"; else shasum -a 256 "$1"; fi | cut -d' ' -f1
}

# The tool cache's layout (@actions/tool-cache): NAME/VERSION/ARCH, and
# ARCH.complete beside it once the copy is whole.
cache="${RUNNER_TOOL_CACHE:?RUNNER_TOOL_CACHE is not set}/rsgen/${version#v}"
dir="$cache/$arch"
if [ -f "$cache/$arch.complete" ] && [ -x "$dir/$exe" ]; then
  echo "rsgen $version: in the tool cache"
else
  base="${RSGEN_RELEASES:-https://github.com/rsgen/rsgen/releases/download}/$version"
  tmp=$(mktemp -d "${RUNNER_TEMP:-/tmp}/rsgen.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  echo "rsgen $version: downloading $base/$archive"
  curl -fsSL --retry 3 -o "$tmp/checksums.txt" "$base/checksums.txt" || fail "could not download $base/checksums.txt"
  curl -fsSL --retry 3 -o "$tmp/$archive" "$base/$archive" || fail "could not download $base/$archive"
  want=$(awk -v name="$archive" '$2 == name { print $1 }' "$tmp/checksums.txt" | sort -u)
  [ -n "$want" ] || fail "checksums.txt of $version does not list $archive: not installed"
  [ "$(echo "$want" | wc -l)" -eq 1 ] || fail "checksums.txt of $version gives $archive two different SHA-256: not installed"
  got=$(sha256 "$tmp/$archive")
  [ "$got" = "$want" ] ||
    fail "checksum mismatch: $archive has SHA-256 $got, checksums.txt says $want: the download is corrupt or tampered with; not installed"
  mkdir -p "$tmp/x"
  if [ "$ext" = tar.gz ]; then
    tar -xzf "$tmp/$archive" -C "$tmp/x"
  elif command -v unzip >/dev/null 2>&1; then
    unzip -q "$tmp/$archive" -d "$tmp/x"
  else
    7z x -y -o"$tmp/x" "$tmp/$archive" >/dev/null # Windows runners have 7-Zip
  fi
  [ -f "$tmp/x/$exe" ] || fail "$archive holds no $exe"
  rm -rf "$dir" "$cache/$arch.complete"
  mkdir -p "$dir"
  cp -R "$tmp/x/." "$dir/"
  chmod +x "$dir/$exe"
  touch "$cache/$arch.complete"
  echo "rsgen $version: verified against checksums.txt, installed in $dir"
fi
[ -n "${GITHUB_PATH:-}" ] && echo "$dir" >>"$GITHUB_PATH"

args=(build "$INPUT_SOURCE")
[ -n "${INPUT_BASE_URL:-}" ] && args+=(--base-url "$INPUT_BASE_URL")
[ -n "${INPUT_OUT:-}" ] && args+=(--out "$INPUT_OUT")
[ -n "${INPUT_PREVIOUS:-}" ] && args+=(--previous "$INPUT_PREVIOUS")
if [ -n "${INPUT_ARGS:-}" ]; then
  read -r -a extra <<<"$INPUT_ARGS"
  args+=("${extra[@]}")
fi

# rsgen's messages go to the log as they come, and to a file, whose
# "since …: N created, N updated, N deleted" lines (one per resource set;
# "rsgen: dry run: …" with --dry-run) give the counts. Only rsgen's own
# lines count: a file name in a notice cannot forge one.
log="${RUNNER_TEMP:-/tmp}/rsgen-action-$$.log"
echo "+ rsgen ${args[*]}"
set +e
"$dir/$exe" "${args[@]}" 2>&1 | tee "$log"
code=${PIPESTATUS[0]}
set -e
read -r created updated deleted < <(awk '
  /^rsgen: (dry run: )?(set [a-z0-9_-]+: )?since [^ ]+: [0-9]+ created, [0-9]+ updated, [0-9]+ deleted(;|$)/ {
    match($0, /[0-9]+ created, [0-9]+ updated, [0-9]+ deleted/)
    split(substr($0, RSTART, RLENGTH), f, /[ ,]+/); c += f[1]; u += f[3]; d += f[5]; n++
  }
  END { if (n) print c, u, d; else print "- - -" }' "$log")
rm -f "$log"
[ "$created" = - ] && created="" updated="" deleted=""
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  { echo "exit-code=$code"; echo "created=$created"; echo "updated=$updated"; echo "deleted=$deleted"; echo "version=$version"; } >>"$GITHUB_OUTPUT"
fi
case $code in
  0) ;;
  3) fail "rsgen published, but some files could not be read (exit code 3; the output exit-code says so): see the log above" ;;
  *) exit "$code" ;;
esac
