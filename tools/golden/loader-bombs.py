#!/usr/bin/env python3
"""Decompression-bomb fixtures for the strict, bounded loaders (issue 10), written with Python's
zlib/struct and NumPy's own .npy writer, so the files are independent of @mx's writers:

- packages/io/src/mnist/__fixtures__/bomb-idx-declares-7856-inflates-256mib.gz
  A gzip IDX file whose header declares shape (10, 28, 28) of uint8 (7,856 bytes of content) but
  whose gzip stream inflates to 256 MiB (the header, then zeros). A lenient reader inflates all of
  it before comparing; ours must stop at the declared size.
- packages/ndarray/src/io/__fixtures__/bomb-aliased-members.npz
  One deflated member (a 1 MiB float32 .npy of zeros) and 3,000 central directory entries that all
  point at it (names a0.npy .. a2999.npy): a lenient reader loads 3,000 arrays, 3 GiB.
- packages/ndarray/src/io/__fixtures__/bomb-size-lies.npz
  One deflated member whose directory entry and local header declare 7,000 uncompressed bytes
  (CRC-32 of the real content) while the stream inflates to 64 MiB.

Each file is deterministic (fixed timestamps, zlib level 9). Rerun from the repository root:
    python3 tools/golden/loader-bombs.py
"""
import io
import pathlib
import struct
import zlib

import numpy

ROOT = pathlib.Path(__file__).resolve().parents[2]
IDX_OUT = ROOT / "packages/io/src/mnist/__fixtures__/bomb-idx-declares-7856-inflates-256mib.gz"
ALIAS_OUT = ROOT / "packages/ndarray/src/io/__fixtures__/bomb-aliased-members.npz"
LIE_OUT = ROOT / "packages/ndarray/src/io/__fixtures__/bomb-size-lies.npz"
MIB = 1 << 20
DOS_DATE_1980_01_01 = 0x21


def deflate_stream(chunks):
    """Raw DEFLATE of the concatenated chunks, level 9."""
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    out = [c.compress(ch) for ch in chunks]
    out.append(c.flush())
    return b"".join(out)


def gzip_member(chunks):
    """One gzip member (no name, mtime 0, OS 255) of the concatenated chunks."""
    crc, size = 0, 0
    for ch in chunks():
        crc = zlib.crc32(ch, crc)
        size += len(ch)
    header = b"\x1f\x8b\x08\x00" + struct.pack("<I", 0) + b"\x02\xff"
    return header + deflate_stream(chunks()) + struct.pack("<II", crc, size & 0xFFFFFFFF)


def idx_bomb():
    header = bytes([0, 0, 0x08, 3]) + struct.pack(">iii", 10, 28, 28)
    zeros = bytes(MIB)
    total = 256 * MIB

    def chunks():
        yield header
        for _ in range(total // MIB):
            yield zeros

    return gzip_member(chunks)


def npy_bytes(array):
    buf = io.BytesIO()
    numpy.save(buf, array)
    return buf.getvalue()


def local_header(name, crc, csize, usize):
    return struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, DOS_DATE_1980_01_01,
                       crc, csize, usize, len(name), 0) + name


def central_header(name, crc, csize, usize, offset):
    return struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 8, 0, DOS_DATE_1980_01_01,
                       crc, csize, usize, len(name), 0, 0, 0, 0, 0, offset) + name


def end_record(count, cd_size, cd_offset):
    return struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, count, count, cd_size, cd_offset, 0)


def alias_bomb():
    content = npy_bytes(numpy.zeros(MIB // 4, dtype="<f4"))
    data = deflate_stream([content])
    crc = zlib.crc32(content)
    local = local_header(b"a0.npy", crc, len(data), len(content)) + data
    cd = b"".join(central_header(f"a{i}.npy".encode(), crc, len(data), len(content), 0)
                  for i in range(3000))
    return local + cd + end_record(3000, len(cd), len(local))


def lie_bomb():
    content = npy_bytes(numpy.zeros(64 * MIB // 4, dtype="<f4"))
    data = deflate_stream([content])
    crc = zlib.crc32(content)
    declared = 7000
    local = local_header(b"x.npy", crc, len(data), declared) + data
    cd = central_header(b"x.npy", crc, len(data), declared, 0)
    return local + cd + end_record(1, len(cd), len(local))


def main():
    for path, make in ((IDX_OUT, idx_bomb), (ALIAS_OUT, alias_bomb), (LIE_OUT, lie_bomb)):
        path.parent.mkdir(parents=True, exist_ok=True)
        body = make()
        path.write_bytes(body)
        print(f"{path.relative_to(ROOT)}: {len(body)} bytes")


if __name__ == "__main__":
    main()
