#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A vmlinux.h for another architecture, from Debian's own kernel package:
#
#   scripts/vmlinux-h.sh ARCH OUT
#
# The newest linux-image-6.1.0-NN-ARCH package is downloaded with apt-get
# download (kept in $VMTEST_CACHE, as make vmtest keeps its kernels), its
# kernel image decompressed, and the kernel's BTF, which the image holds
# as one blob (magic 0xeb9f, then a header that gives its length), cut
# out and dumped as C by bpftool. The build host's own BTF cannot serve:
# it has no arm64 struct user_pt_regs, for one.
set -euo pipefail

die() {
	echo "vmlinux-h: $*" >&2
	exit 1
}

[ $# -eq 2 ] || die "usage: $0 ARCH OUT"
arch=$1 out=$2
CACHE=${VMTEST_CACHE:-/var/cache/ringcap-vmtest}
case "$arch" in
arm64) pat='^linux-image-6\.1\.0-[0-9]+-arm64$' ;;
*) die "no Debian kernel package known for ARCH=$arch" ;;
esac
mkdir -p "$CACHE"

pkg=$(apt-cache search --names-only "$pat" 2>/dev/null | awk '{print $1}' | sort -V | tail -n 1)
if [ -z "$pkg" ]; then
	apt-get update -qq >&2 || true
	pkg=$(apt-cache search --names-only "$pat" 2>/dev/null | awk '{print $1}' | sort -V |
		tail -n 1)
fi
[ -n "$pkg" ] || die "no Debian package matches $pat: is the $arch architecture added (dpkg --add-architecture $arch; apt-get update)? scripts/deps.sh --arm64 does it"
dir="$CACHE/$pkg"
if [ ! -e "$dir/vmlinuz" ]; then
	tmp=$(mktemp -d "$CACHE/dl.XXXXXX")
	(cd "$tmp" && apt-get download -q "$pkg" >/dev/null 2>&1) ||
		{ rm -rf "$tmp"; die "apt-get download $pkg failed"; }
	dpkg-deb --fsys-tarfile "$tmp"/*.deb | tar -x -C "$tmp" ./boot
	mkdir -p "$dir"
	cp "$tmp"/boot/config-* "$dir/config"
	cp "$tmp"/boot/vmlinuz-* "$dir/vmlinuz.tmp"
	mv "$dir/vmlinuz.tmp" "$dir/vmlinuz"
	rm -rf "$tmp"
fi

btf=$(mktemp)
trap 'rm -f "$btf"' EXIT
python3 - "$dir/vmlinuz" "$btf" <<'EOF'
import gzip, struct, sys

data = open(sys.argv[1], 'rb').read()
if data[:2] == b'\x1f\x8b':
    data = gzip.decompress(data)
# struct btf_header: magic u16, version u8, flags u8, hdr_len u32,
# type_off, type_len, str_off, str_len u32
pos = 0
while True:
    pos = data.find(b'\x9f\xeb\x01\x00\x18\x00\x00\x00', pos)
    if pos < 0:
        sys.exit('vmlinux-h: no BTF in the kernel image')
    type_off, type_len, str_off, str_len = struct.unpack_from('<4I', data, pos + 8)
    end = pos + 24 + str_off + str_len
    if (type_off == 0 and str_off == type_len and type_len > 1 << 20 and
            end <= len(data) and data[pos + 24 + str_off] == 0):
        open(sys.argv[2], 'wb').write(data[pos:end])
        break
    pos += 1
EOF
bpftool btf dump file "$btf" format c > "$out.tmp"
mv "$out.tmp" "$out"
