#!/usr/bin/env python3
"""Small test images for @mx/io's image decoding tests, and the pixels each decode must give.

The pixels are generated here (smooth gradients plus xorshift32 noise) and written as:

- PNGs encoded by this script (zlib + CRC from the standard library): 8-bit RGB, gray, RGBA,
  gray+alpha, palette and 16-bit RGB. Their expected pixels are the generated ones, exactly.
- JPEGs encoded by Pillow (libjpeg): 4:2:0 and 4:4:4 colour, gray, progressive. Their expected
  pixels are Pillow's decode of the written file (an independent libjpeg decoder, like the one
  OpenCV uses in MXNet), compared by the tests with a small tolerance.

What `imdecode` must return (MXNet: OpenCV's imdecode, then BGR->RGB):
- flag=1: 3 channels; alpha is dropped (not composited), gray is replicated, 16-bit samples keep
  their high byte (libpng's strip_16, as OpenCV sets it).
- flag=0: 1 channel. For PNG the gray value is OpenCV's cvtColor RGB2GRAY fixed-point formula,
  (4899 R + 9617 G + 1868 B + 8192) >> 14, computed from the 8-bit RGB pixels. For JPEG OpenCV asks
  libjpeg for its luma plane; Pillow's draft('L') mode does the same, and that is the expectation.
  @mx computes gray from the decoded RGB for JPEG too, so a few pixels (where the RGB decode
  clips) differ by up to ~5: gray_tolerance is 6 for JPEGs (the test also bounds the mean).

Writes packages/io/src/__fixtures__/images/* and packages/io/src/__golden__/image-decode.json.
Rerun from anywhere with the system Python (NumPy, Pillow):  python3 tools/golden/image/fixtures.py
"""
import base64
import io
import json
import pathlib
import struct
import zlib

import numpy as np
import PIL
from PIL import Image

ROOT = pathlib.Path(__file__).resolve().parents[3]
FIXTURES = ROOT / 'packages/io/src/__fixtures__/images'
OUT = ROOT / 'packages/io/src/__golden__/image-decode.json'


def xorshift_bytes(seed, n):
    x = seed & 0xFFFFFFFF
    out = np.empty(n, dtype=np.uint32)
    for i in range(n):
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        out[i] = x
    return out


def pattern(h, w, c, seed, noise=24, maxval=255):
    """Gradients in each channel plus bounded noise, clipped to [0, maxval]."""
    yy, xx = np.mgrid[0:h, 0:w]
    base = []
    for ch in range(c):
        g = (xx * (37 + 11 * ch) + yy * (53 - 7 * ch) + 29 * ch) / max(1, (w + h)) * 4.0
        base.append(np.mod(g * maxval / 16.0, maxval + 1))
    base = np.stack(base, axis=-1)
    r = xorshift_bytes(seed, h * w * c).reshape(h, w, c)
    noisy = base + (r % (2 * noise + 1)).astype(np.float64) - noise
    return np.clip(np.round(noisy), 0, maxval).astype(np.uint16 if maxval > 255 else np.uint8)


def png_chunk(kind, data):
    body = kind + data
    return struct.pack('>I', len(data)) + body + struct.pack('>I', zlib.crc32(body) & 0xFFFFFFFF)


def write_png(path, rows, width, height, bit_depth, color_type, extra=b''):
    """rows: list of bytes (one scanline each, without filter byte); filter 0..4 cycled per row."""
    bpp = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[color_type] * (bit_depth // 8)
    raw = bytearray()
    prev = bytes(len(rows[0]))
    for y, row in enumerate(rows):
        ftype = y % 5
        out = bytearray(len(row))
        for i, v in enumerate(row):
            a = row[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ftype == 0:
                pred = 0
            elif ftype == 1:
                pred = a
            elif ftype == 2:
                pred = b
            elif ftype == 3:
                pred = (a + b) // 2
            else:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            out[i] = (v - pred) & 0xFF
        raw += bytes([ftype]) + bytes(out)
        prev = row
    ihdr = struct.pack('>IIBBBBB', width, height, bit_depth, color_type, 0, 0, 0)
    data = (b'\x89PNG\r\n\x1a\n' + png_chunk(b'IHDR', ihdr) + extra
            + png_chunk(b'IDAT', zlib.compress(bytes(raw), 9)) + png_chunk(b'IEND', b''))
    path.write_bytes(data)


def cv_gray(rgb):
    r, g, b = (rgb[..., i].astype(np.int64) for i in range(3))
    return ((4899 * r + 9617 * g + 1868 * b + 8192) >> 14).astype(np.uint8)[..., None]


def b64(a):
    return base64.b64encode(np.ascontiguousarray(a, dtype=np.uint8).tobytes()).decode()


def entry(name, rgb, gray, tolerance, gray_tolerance):
    h, w, _ = rgb.shape
    return {'file': name, 'height': h, 'width': w, 'rgb': b64(rgb), 'gray': b64(gray), 'tolerance': tolerance,
            'gray_tolerance': gray_tolerance}


def main():
    FIXTURES.mkdir(parents=True, exist_ok=True)
    cases = []

    rgb = pattern(6, 8, 3, 1)
    write_png(FIXTURES / 'rgb-8x6.png', [rgb[y].tobytes() for y in range(6)], 8, 6, 8, 2)
    cases.append(entry('rgb-8x6.png', rgb, cv_gray(rgb), 0, 0))

    gray = pattern(5, 7, 1, 2)
    write_png(FIXTURES / 'gray-7x5.png', [gray[y].tobytes() for y in range(5)], 7, 5, 8, 0)
    cases.append(entry('gray-7x5.png', np.repeat(gray, 3, axis=2), gray, 0, 0))

    rgba = pattern(4, 6, 4, 3)
    rgba[0, 0, 3] = 0
    rgba[1, 2, 3] = 255
    write_png(FIXTURES / 'rgba-6x4.png', [rgba[y].tobytes() for y in range(4)], 6, 4, 8, 6)
    cases.append(entry('rgba-6x4.png', rgba[..., :3], cv_gray(rgba[..., :3]), 0, 0))

    ga = pattern(3, 5, 2, 4)
    write_png(FIXTURES / 'graya-5x3.png', [ga[y].tobytes() for y in range(3)], 5, 3, 8, 4)
    cases.append(entry('graya-5x3.png', np.repeat(ga[..., :1], 3, axis=2), ga[..., :1], 0, 0))

    palette = pattern(1, 16, 3, 5)[0]
    idx = (xorshift_bytes(6, 30) % 16).astype(np.uint8).reshape(5, 6)
    plte = png_chunk(b'PLTE', palette.tobytes())
    write_png(FIXTURES / 'palette-6x5.png', [idx[y].tobytes() for y in range(5)], 6, 5, 8, 3, plte)
    prgb = palette[idx]
    cases.append(entry('palette-6x5.png', prgb, cv_gray(prgb), 0, 0))

    rgb16 = pattern(3, 4, 3, 7, noise=3000, maxval=65535)
    # Samples whose high byte differs from their rounded 8-bit value (strip_16 keeps the high byte).
    rgb16[0] = [[0x00FF, 0x0180, 0x7F80], [0x80FF, 0xFF7F, 0xFE80], [0x0081, 0x017F, 0xFFFF], [0x8000, 0x7FFF, 0x807F]]
    write_png(FIXTURES / 'rgb16-4x3.png', [rgb16[y].astype('>u2').tobytes() for y in range(3)], 4, 3, 16, 2)
    hi = (rgb16 >> 8).astype(np.uint8)
    cases.append(entry('rgb16-4x3.png', hi, cv_gray(hi), 0, 0))

    def jpeg(name, pixels, mode, **kw):
        img = Image.fromarray(pixels if mode != 'L' else pixels[..., 0], mode)
        buf = io.BytesIO()
        img.save(buf, 'JPEG', **kw)
        (FIXTURES / name).write_bytes(buf.getvalue())
        dec = Image.open(io.BytesIO(buf.getvalue()))
        dec_rgb = np.asarray(dec.convert('RGB'))
        luma = Image.open(io.BytesIO(buf.getvalue()))
        luma.draft('L', luma.size)
        dec_gray = np.asarray(luma.convert('L'))[..., None]
        cases.append(entry(name, dec_rgb, dec_gray, 3, 6))

    jpeg('rgb-16x12.jpg', pattern(12, 16, 3, 8, noise=6), 'RGB', quality=90)
    jpeg('rgb444-17x13.jpg', pattern(13, 17, 3, 9, noise=6), 'RGB', quality=95, subsampling=0)
    jpeg('gray-9x7.jpg', pattern(7, 9, 1, 10, noise=6), 'L', quality=90)
    jpeg('progressive-20x14.jpg', pattern(14, 20, 3, 11, noise=6), 'RGB', quality=85, progressive=True)

    golden = {'generator': f'tools/golden/image/fixtures.py (NumPy {np.__version__}, Pillow {PIL.__version__})',
              'cases': cases}
    OUT.write_text(json.dumps(golden, indent=1) + '\n')
    print(f'wrote {len(cases)} fixtures and {OUT}')


if __name__ == '__main__':
    main()
