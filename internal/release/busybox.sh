#!/usr/bin/env bash
# busybox.sh DIR: Debian's static busybox for amd64 and arm64 into
# DIR/ARCH/busybox, for the shell of the container image (GitLab CI,
# Woodpecker and Tekton run a job's script with /bin/sh). Each package is
# checked against its SHA-256, pinned here from bookworm's Packages index,
# whose signature by the Debian Stable Release Key (12/bookworm) was
# checked with gpgv when this pin was made. A package already in DIR is
# checked again, not downloaded again. When Debian replaces this version,
# pin the new one the same way.
set -euo pipefail
dir=${1:?usage: busybox.sh DIR}
version=1.35.0-4+deb12u1+b1
declare -A sha256=(
  [amd64]=3d3fdbe91d4660c873e14b092c213fe81c1da6362daa236eb25d0171eb108744
  [arm64]=732c9135564fc71337e0e05fb4da4d11e6c28c1834bce3e405e575afef2a52f5
)
mkdir -p "$dir"
for arch in amd64 arm64; do
  deb="$dir/busybox-static_${version}_$arch.deb"
  if [ ! -f "$deb" ]; then
    curl -fsSL --retry 3 -o "$deb.tmp" "http://deb.debian.org/debian/pool/main/b/busybox/${deb##*/}"
    mv "$deb.tmp" "$deb"
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
