#!/usr/bin/env bash
# busybox.sh DIR: Debian's static busybox for amd64 and arm64 into
# DIR/ARCH/busybox, for the shell of the container image (GitLab CI,
# Woodpecker and Tekton run a job's script with /bin/sh). Run on Debian 12
# (bookworm) as root: the packages come through apt, by name and version,
# and each is checked against its SHA-256, pinned here from bookworm's
# Packages index, whose signature by the Debian Stable Release Key
# (12/bookworm) was checked with gpgv when this pin was made. A package
# already in DIR is checked again, not downloaded again. When Debian
# replaces this version, pin the new one the same way.
set -euo pipefail
dir=${1:?usage: busybox.sh DIR}
version=1:1.35.0-4+deb12u1+b1
declare -A sha256=(
  [amd64]=3d3fdbe91d4660c873e14b092c213fe81c1da6362daa236eb25d0171eb108744
  [arm64]=732c9135564fc71337e0e05fb4da4d11e6c28c1834bce3e405e575afef2a52f5
)
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
updated=""
for arch in amd64 arm64; do
  deb="$dir/busybox-static_${version#*:}_$arch.deb"
  if [ ! -f "$deb" ]; then
    if [ "$arch" != "$(dpkg --print-architecture)" ] && ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
      dpkg --add-architecture "$arch"
      updated=""
    fi
    tmp=$(mktemp -d) && chmod 755 "$tmp" # readable by apt's _apt user
    if [ -z "$updated" ] && ! (cd "$tmp" && apt-get download -q "busybox-static:$arch=$version") >/dev/null 2>&1; then
      apt-get update -q >/dev/null
      updated=1
    fi
    [ -n "$(ls "$tmp")" ] || (cd "$tmp" && apt-get download -q "busybox-static:$arch=$version" >/dev/null)
    mv "$tmp"/busybox-static_*_"$arch".deb "$deb"
    rm -rf "$tmp"
  fi
  if ! echo "${sha256[$arch]}  $deb" | sha256sum -c --quiet; then
    rm -f "$deb"
    echo "busybox.sh: ${deb##*/} does not have the pinned SHA-256: removed" >&2
    exit 1
  fi
  mkdir -p "$dir/$arch"
  dpkg-deb --fsys-tarfile "$deb" | tar -xOf - ./bin/busybox >"$dir/$arch/busybox.tmp"
  chmod 755 "$dir/$arch/busybox.tmp"
  mv "$dir/$arch/busybox.tmp" "$dir/$arch/busybox"
done
