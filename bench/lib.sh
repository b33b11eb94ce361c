# Shared by the bench/ scripts: source it, do not run it.
# Needs bash, go, coreutils; GNU time (/usr/bin/time, Debian package "time")
# for the memory script.

# repo is the root of the checkout the scripts are in.
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

die() { echo "bench: error: $*" >&2; exit 1; }
note() { echo "bench: $*" >&2; }

# build_tools DIR builds rsgen and gencorpus from this checkout into DIR.
build_tools() {
  mkdir -p "$1"
  (cd "$repo" && go build -o "$1/rsgen" ./cmd/rsgen && go build -o "$1/gencorpus" ./bench/gencorpus) ||
    die "go build failed"
}

# ms CMD... runs CMD with its output discarded and prints its wall-clock
# time and the CPU time (user + system) of the processes it ran, both in
# milliseconds: "WALL CPU". Run it in a command substitution: the CPU time
# is that of the children the substitution's shell waited for.
clk_tck=$(getconf CLK_TCK)
children_ticks() { # sets ticks to cutime + cstime of this shell (its waited-for children's CPU)
  local st
  read -r -a st </proc/$BASHPID/stat
  ticks=$((st[15] + st[16]))
}
ms() {
  local start end c0 c1 ticks
  children_ticks
  c0=$ticks
  start=$(date +%s%N)
  "$@" >/dev/null 2>&1 || die "failed: $*"
  end=$(date +%s%N)
  children_ticks
  c1=$ticks
  echo "$(((end - start) / 1000000)) $(((c1 - c0) * 1000 / clk_tck))"
}

# median reads numbers, one a line, and prints their median (the lower
# middle one for an even count).
median() { sort -n | awk '{a[NR] = $1} END {if (NR) print a[int((NR + 1) / 2)]}'; }

# warm DIR reads every file under DIR once so that it is in the page cache.
warm() { find "$1" -type f -print0 | xargs -0 -r cat >/dev/null; }

# drop_caches empties the page cache, dentries and inodes (needs root).
drop_caches() {
  sync
  echo 3 >/proc/sys/vm/drop_caches 2>/dev/null ||
    die "cannot write /proc/sys/vm/drop_caches (cold-cache runs need root and a writable /proc/sys)"
}

loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

# machine prints what the numbers were measured on.
machine() {
  echo "- CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores available"
  echo "- memory: $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo); kernel $(uname -r)"
  echo "- file system: $(df -T "$1" | awk 'NR == 2 {print $2 " on " $1}')"
  echo "- $(go version | cut -d' ' -f3-); rsgen $(git -C "$repo" rev-parse --short HEAD)$(git -C "$repo" diff --quiet || echo '+changes')"
}
