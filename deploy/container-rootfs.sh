#!/bin/sh
# Assembles the root file system deploy/Containerfile copies into an empty image (FROM
# scratch: no base image is pulled): the ragd executable, the shared libraries it and its
# LanceDB library link (taken from this machine, which must be the executable's platform),
# a static busybox for the health check (Debian: busybox-static), and the passwd entry of
# the user it runs as.
#
#   deploy/container-rootfs.sh dist/ragd [CONTEXT]      (CONTEXT: dist/container by default)
#   podman build --format docker -f deploy/Containerfile -t ragd dist/container
set -eu
exe=${1:?usage: container-rootfs.sh RAGD_EXECUTABLE [CONTEXT]}
ctx=${2:-$(dirname "$0")/../dist/container}
busybox=$(command -v busybox) || { echo "busybox not found (Debian: apt-get install busybox-static)" >&2; exit 1; }
if ldd "$busybox" >/dev/null 2>&1; then echo "$busybox is not static (Debian: busybox-static)" >&2; exit 1; fi

root="$ctx/rootfs"
rm -rf "$root"
mkdir -p "$root/usr/local/bin" "$root/bin" "$root/etc" "$root/tmp" "$root/data"
chmod 1777 "$root/tmp"
chmod 0700 "$root/data"
install -m 0755 "$exe" "$root/usr/local/bin/ragd"
install -m 0755 "$busybox" "$root/bin/busybox"

# The executable's libraries, and libgcc_s and librt, which LanceDB's library (embedded in it)
# also links; ldconfig's first entry for each is this machine's own architecture.
extra=$(for so in libgcc_s.so.1 librt.so.1; do ldconfig -p | awk -v so="$so" '$1 == so {print "x => " $NF; exit}'; done)
libs=$( (ldd "$exe"; echo "$extra") | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}' | sort -u)
for lib in $libs; do
  mkdir -p "$root$(dirname "$lib")"
  cp -L "$lib" "$root$lib"
done

echo "ragd:x:10001:10001:ragd:/data:/bin/false" > "$root/etc/passwd"
echo "ragd:x:10001:" > "$root/etc/group"
echo "built $root: $(du -sh "$root" | cut -f1)"
