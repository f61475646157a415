#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""What a screenshot shows, for the browser test of the flame graph
(tests/test_flamegraph.c): decodes a PNG (8-bit RGB or RGBA, not
interlaced: what Chromium writes) with zlib alone and prints

    WIDTH HEIGHT NONWHITE VIVID COLOURS

NONWHITE: pixels that are not white; VIVID: pixels whose chroma (the
largest of red, green and blue less the smallest) is 70 or more, as the
CPU flame graph's frames are (its palettes: red 200 to 255 with green
and blue at most 130, kernel frames orange) and its background gradient
(#eeeeee to #eeeeb0, chroma at most 62), white and grey or black text
are not; COLOURS: how many distinct colours the VIVID pixels have.
Exits 1 on a file that is not such a PNG."""
import struct
import sys
import zlib


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def decode(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, ihdr = 8, [], None
    while pos + 12 <= len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        (crc,) = struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])
        if zlib.crc32(kind + body) != crc:
            raise ValueError("bad CRC in %r" % kind)
        pos += 12 + n
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    if not ihdr:
        raise ValueError("no IHDR")
    w, h, depth, ctype, _, _, interlace = ihdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError("depth %d colour type %d interlace %d: not handled" %
                         (depth, ctype, interlace))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = w * bpp
    if len(raw) != h * (stride + 1):
        raise ValueError("%d bytes of pixels for %dx%d" % (len(raw), w, h))
    rows, prev = [], bytearray(stride)
    for y in range(h):
        ft = raw[y * (stride + 1)]
        cur = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if ft == 1:
            for i in range(bpp, stride):
                cur[i] = (cur[i] + cur[i - bpp]) & 255
        elif ft == 2:
            cur = bytearray((a + b) & 255 for a, b in zip(cur, prev))
        elif ft == 3:
            for i in range(stride):
                left = cur[i - bpp] if i >= bpp else 0
                cur[i] = (cur[i] + ((left + prev[i]) >> 1)) & 255
        elif ft == 4:
            for i in range(stride):
                left = cur[i - bpp] if i >= bpp else 0
                ul = prev[i - bpp] if i >= bpp else 0
                cur[i] = (cur[i] + paeth(left, prev[i], ul)) & 255
        elif ft != 0:
            raise ValueError("filter %d" % ft)
        rows.append(bytes(cur))
        prev = cur
    return w, h, bpp, rows


def main():
    try:
        w, h, bpp, rows = decode(sys.argv[1])
    except (OSError, ValueError, zlib.error, struct.error) as e:
        print("png_check: %s: %s" % (sys.argv[1], e), file=sys.stderr)
        return 1
    nonwhite = vivid = 0
    colours = set()
    for row in rows:
        for x in range(0, w * bpp, bpp):
            r, g, b = row[x], row[x + 1], row[x + 2]
            if r == g == b == 255:
                continue
            nonwhite += 1
            if max(r, g, b) - min(r, g, b) >= 70:
                vivid += 1
                colours.add((r, g, b))
    print(w, h, nonwhite, vivid, len(colours))
    return 0


if __name__ == "__main__":
    sys.exit(main())
