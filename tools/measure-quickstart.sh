#!/usr/bin/env bash
# Measures README command 1 as a newcomer meets it: a clean Debian 12 root
# made with debootstrap (minbase: no compiler, no Python, no git), a clone of
# this repository in it, `bash tools/quickstart.sh` timed from nothing, then
# a new login shell there runs `hloscope --version` and
# `python3 -c "import hloscope"`. Root only (debootstrap, chroot, bind mounts).
#
#   bash tools/measure-quickstart.sh [ROOT]        # ROOT: a new folder (default /tmp/hloscope-clean-root)
#
# Where the network needs a proxy's certificate (a sandbox), set
# HLOSCOPE_CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt: it is copied into
# the root and given to pip; nothing else of this machine is.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
root=${1:-/tmp/hloscope-clean-root}
[[ ! -e $root ]] || { echo "$root exists: give a new folder" >&2; exit 2; }
command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap >/dev/null

start=$SECONDS
debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian >"$root.debootstrap.log" 2>&1
echo "clean root: $root ($((SECONDS - start)) s to make; log $root.debootstrap.log)"
git clone -q "$repo" "$root/root/hloscope"
cp /etc/resolv.conf "$root/etc/resolv.conf"
env=(HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 TERM=dumb)
if [[ -n ${HLOSCOPE_CA_BUNDLE:-} ]]; then
  mkdir -p "$root/etc/hloscope-measure"
  cp "$HLOSCOPE_CA_BUNDLE" "$root/etc/hloscope-measure/ca.crt"
  env+=(PIP_CERT=/etc/hloscope-measure/ca.crt)
fi
mounts=(proc sys dev dev/pts)
for d in "${mounts[@]}"; do mount --bind "/$d" "$root/$d"; done
cleanup() { for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount "$root/${mounts[i]}" 2>/dev/null || true; done; }
trap cleanup EXIT

echo "nproc: $(nproc); in the root: $(chroot "$root" sh -c 'command -v gcc python3 git cmake || true' | wc -l) of gcc, python3, git, cmake"
t0=$SECONDS
status=0
chroot "$root" /usr/bin/env -i "${env[@]}" /bin/bash -c 'cd /root/hloscope && bash tools/quickstart.sh' || status=$?
wall=$((SECONDS - t0))
echo "README command 1: exit $status, ${wall} s wall ($((wall / 60)) min $((wall % 60)) s)"
echo "a new shell in the root:"
chroot "$root" /usr/bin/env -i "${env[@]}" /bin/bash -lic \
  'hloscope --version && python3 -c "import hloscope; print(\"import hloscope:\", hloscope.__file__)"' 2>&1 |
  grep -v "^bash: cannot set terminal process group\|^bash: no job control"
exit "$status"
