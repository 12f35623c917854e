/**
 * Packing and the command: images made with sharp in a temp folder, listed and packed through
 * `im2recMain`, read back with MXIndexedRecordIO + unpack/unpackImg. Checks headers (ids, labels,
 * multi-labels), sizes after --resize / --center-crop (im2rec's integer arithmetic), colors
 * (RGB order survives), pass-through bytes, in-order output with --num-thread, skipping of
 * unreadable images, and command-line errors (usage, exit code 1).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MXNetError } from '@mx/base';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MXIndexedRecordIO } from '../recordio/indexed.js';
import { unpack } from '../recordio/irheader.js';
import { im2recMain, parseIm2recArgs } from './cli.js';
import { packImg, unpackImg } from './pack-img.js';

/** A solid-color image file of `w` x `h`. */
async function solid(file: string, w: number, h: number, rgb: [number, number, number]): Promise<void> {
  const img = sharp({
    create: { width: w, height: h, channels: 3, background: { r: rgb[0], g: rgb[1], b: rgb[2] } },
  });
  const buf = file.endsWith('.png')
    ? await img.png().toBuffer()
    : await img.jpeg({ quality: 100 }).toBuffer();
  writeFileSync(file, buf);
}

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: { stdout: { write: (s: string) => out.push(s) }, stderr: { write: (s: string) => err.push(s) } },
    out: () => out.join(''),
    err: () => err.join(''),
  };
}

function readAll(prefix: string): Array<[ReturnType<typeof unpack>[0], Uint8Array]> {
  const rec = new MXIndexedRecordIO(`${prefix}.idx`, `${prefix}.rec`, 'r');
  try {
    return rec.keys.map((k) => {
      const [h, payload] = unpack(rec.readIdx(k));
      return [h, new Uint8Array(payload)];
    });
  } finally {
    rec.close();
  }
}

let dir: string;
let root: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'im2rec-pack-'));
  root = join(dir, 'img');
  mkdirSync(join(root, 'a_red'), { recursive: true });
  mkdirSync(join(root, 'b_blue'), { recursive: true });
  await solid(join(root, 'a_red', 'wide.png'), 20, 10, [255, 0, 0]);
  await solid(join(root, 'a_red', 'tall.jpg'), 9, 30, [250, 10, 10]);
  await solid(join(root, 'b_blue', 'sq.png'), 12, 12, [0, 0, 255]);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('mx-im2rec --list then pack', () => {
  it('lists recursively (labels by sorted folder), then packs resized records in list order', async () => {
    const prefix = join(dir, 'all');
    const c = capture();
    expect(await im2recMain(['--list', '--recursive', '--no-shuffle', prefix, root], c.io)).toBe(0);
    expect(c.out()).toContain('a_red 0\nb_blue 1\n');
    expect(readFileSync(`${prefix}.lst`, 'utf8')).toBe(
      '0\t0.000000\ta_red/tall.jpg\n1\t0.000000\ta_red/wide.png\n2\t1.000000\tb_blue/sq.png\n',
    );
    const p = capture();
    expect(await im2recMain([prefix, root, '--resize', '8', '--encoding', '.png'], p.io)).toBe(0);
    const records = readAll(prefix);
    expect(records.map(([h]) => [h.id, h.label, h.flag])).toEqual([
      [0, 0, 0],
      [1, 0, 0],
      [2, 1, 0],
    ]);
    // Shorter side to 8, the other side h * 8 // w (im2rec's floor division): 9x30 -> 8x26, 20x10 -> 16x8.
    const shapes: number[][] = [];
    for (const [, payload] of records) {
      const meta = await sharp(payload).metadata();
      expect(meta.format).toBe('png');
      shapes.push([meta.height as number, meta.width as number]);
    }
    expect(shapes).toEqual([
      [26, 8],
      [8, 16],
      [8, 8],
    ]);
  });

  it('draws cli-progress bars on a TTY and log lines otherwise', async () => {
    const prefix = join(dir, 'progress');
    writeFileSync(`${prefix}.lst`, '0\t0\ta_red/wide.png\n1\t1\tb_blue/sq.png\n');
    const tty: string[] = [];
    const stderr = { isTTY: true, columns: 100, write: (s: string) => tty.push(s) };
    expect(
      await im2recMain([prefix, root, '--pass-through'], { stdout: { write: () => true }, stderr }),
    ).toBe(0);
    const drawn = tty.join('');
    expect(drawn).toContain('100% | 2/2 images | progress.lst');
    expect(drawn).toMatch(/\u2588/); // the bar's filled blocks (shades_classic)
    const log = capture();
    expect(await im2recMain([prefix, root, '--pass-through'], log.io)).toBe(0);
    expect(log.err()).toBe(`${prefix}.lst: 2/2\n`);
  });

  it('--center-crop makes squares; colors stay RGB through packImg/unpackImg', async () => {
    const prefix = join(dir, 'crop');
    writeFileSync(`${prefix}.lst`, '5\t3\ta_red/wide.png\n6\t4\tb_blue/sq.png\n');
    expect(await im2recMain([prefix, root, '--center-crop', '--encoding=.png'], capture().io)).toBe(0);
    const rec = new MXIndexedRecordIO(`${prefix}.idx`, `${prefix}.rec`, 'r');
    const [h0, img0] = await unpackImg(rec.readIdx(5), 1);
    const [h1, img1] = await unpackImg(rec.readIdx(6), 1);
    rec.close();
    expect([h0.id, h0.label, h1.id, h1.label]).toEqual([5, 3, 6, 4]);
    expect(img0.shape).toEqual([10, 10, 3]);
    expect(Array.from(img0.data.subarray(0, 3))).toEqual([255, 0, 0]);
    expect(img1.shape).toEqual([12, 12, 3]);
    expect(Array.from(img1.data.subarray(0, 3))).toEqual([0, 0, 255]);
  });

  it('--pass-through keeps the bytes; --pack-label stores every label', async () => {
    const prefix = join(dir, 'multi');
    writeFileSync(`${prefix}.lst`, '0\t1.5\t2\t3\ta_red/tall.jpg\n1\t7\tb_blue/sq.png\n');
    expect(await im2recMain([prefix, root, '--pass-through', '--pack-label'], capture().io)).toBe(0);
    const [[h0, p0], [h1, p1]] = readAll(prefix) as [
      [ReturnType<typeof unpack>[0], Uint8Array],
      [ReturnType<typeof unpack>[0], Uint8Array],
    ];
    expect(h0.flag).toBe(3);
    expect(Array.from(h0.label as Float32Array)).toEqual([1.5, 2, 3]);
    expect([h1.flag, h1.label]).toEqual([0, 7]);
    expect(p0).toEqual(new Uint8Array(readFileSync(join(root, 'a_red', 'tall.jpg'))));
    expect(p1).toEqual(new Uint8Array(readFileSync(join(root, 'b_blue', 'sq.png'))));
    // Without --pack-label only the first label goes in the header.
    expect(await im2recMain([prefix, root, '--pass-through'], capture().io)).toBe(0);
    expect(readAll(prefix).map(([h]) => [h.flag, h.label])).toEqual([
      [0, 1.5],
      [0, 7],
    ]);
  });

  it('--num-thread writes the same records in list order', async () => {
    const one = join(dir, 'n1');
    const four = join(dir, 'n4');
    const list = '2\t0\ta_red/tall.jpg\n0\t0\ta_red/wide.png\n1\t1\tb_blue/sq.png\n';
    writeFileSync(`${one}.lst`, list);
    writeFileSync(`${four}.lst`, list);
    expect(await im2recMain([one, root, '--quality', '80'], capture().io)).toBe(0);
    expect(await im2recMain([four, root, '--quality', '80', '--num-thread', '4'], capture().io)).toBe(0);
    expect(readFileSync(`${four}.rec`)).toEqual(readFileSync(`${one}.rec`));
    expect(readFileSync(`${four}.idx`, 'utf8')).toBe(readFileSync(`${one}.idx`, 'utf8'));
    expect(readAll(four).map(([h]) => h.id)).toEqual([2, 0, 1]);
  });

  it('skips unreadable and missing images with a warning, as im2rec does', async () => {
    const prefix = join(dir, 'bad');
    writeFileSync(join(root, 'broken.jpg'), 'not an image');
    writeFileSync(`${prefix}.lst`, '0\t0\tbroken.jpg\n1\t0\tmissing.png\n2\t1\tb_blue/sq.png\nbad line\n');
    const c = capture();
    expect(await im2recMain([prefix, root], c.io)).toBe(0);
    expect(readAll(prefix).map(([h]) => h.id)).toEqual([2]);
    expect(c.err()).toMatch(/skipped broken\.jpg \(index 0\)/);
    expect(c.err()).toMatch(/skipped missing\.png \(index 1\)/);
    expect(c.err()).toMatch(/bad\.lst:4: skipped/);
    expect(c.out()).toContain('1 records, 2 skipped');
  });
});

describe('command-line errors', () => {
  it('prints the usage and returns 1 for bad arguments', async () => {
    for (const argv of [
      [],
      ['only-prefix'],
      ['p', 'r', '--bogus'],
      ['p', 'r', '--color', '2'],
      ['p', 'r', '--resize', 'x'],
    ]) {
      const c = capture();
      expect(await im2recMain(argv, c.io), argv.join(' ')).toBe(1);
      expect(c.err()).toMatch(/^usage: mx-im2rec/);
      expect(c.err()).toMatch(/mx-im2rec: error: /);
    }
    const h = capture();
    expect(await im2recMain(['--help'], h.io)).toBe(0);
    expect(h.out()).toMatch(/--pass-through/);
  });

  it('parses like argparse: prefixes, =values, negative numbers, --exts lists', () => {
    const a = parseIm2recArgs(['--rec', '--exts', '.png', '.bmp', '--color', '-1', '--train=0.5', 'p', 'r']);
    expect(a).toMatchObject({
      recursive: true,
      exts: ['.png', '.bmp'],
      color: -1,
      trainRatio: 0.5,
      prefix: 'p',
    });
    expect(() => parseIm2recArgs(['--t', '1', 'p', 'r'])).toThrow(/ambiguous/);
  });

  it('returns 1 with the MXNetError message for a missing root or no list', async () => {
    const c = capture();
    expect(await im2recMain(['--list', join(dir, 'x'), join(dir, 'nope')], c.io)).toBe(1);
    expect(c.err()).toMatch(/is not a directory/);
    const d = capture();
    expect(await im2recMain([join(dir, 'no-such-prefix'), root], d.io)).toBe(1);
    expect(d.err()).toMatch(/found no \.lst file/);
    writeFileSync(join(dir, 'lonely.lst'), '0\t0\tx.jpg\n');
    const e = capture();
    expect(await im2recMain([join(dir, 'lonely'), join(dir, 'nope')], e.io)).toBe(1);
    expect(e.err()).toMatch(/is not a directory/);
  });
});

describe('packImg / unpackImg', () => {
  it('round-trips a PNG exactly, in every color mode', async () => {
    const data = new Uint8Array(2 * 3 * 4);
    for (let i = 0; i < data.length; i++) data[i] = (i * 37) % 256;
    const s = await packImg({ label: [1, 2], id: 9 }, { data, shape: [2, 3, 4] }, 3, '.png');
    const [h, rgba] = await unpackImg(s);
    expect([h.flag, Array.from(h.label as Float32Array), h.id]).toEqual([2, [1, 2], 9]);
    expect(rgba.shape).toEqual([2, 3, 4]);
    expect(rgba.data).toEqual(data);
    const [, rgb] = await unpackImg(s, 1);
    expect(rgb.shape).toEqual([2, 3, 3]);
    expect(Array.from(rgb.data.subarray(0, 6))).toEqual([0, 37, 74, 148, 185, 222]);
    const [, gray] = await unpackImg(s, 0);
    // OpenCV's gray: (4899 R + 9617 G + 1868 B + 8192) >> 14 on the first pixel (0, 37, 74).
    expect(gray.shape).toEqual([2, 3, 1]);
    expect(gray.data[0]).toBe((4899 * 0 + 9617 * 37 + 1868 * 74 + 8192) >> 14);
  });

  it('encodes JPEG at the quality asked (a lower quality is smaller)', async () => {
    const data = new Uint8Array(32 * 32 * 3);
    for (let i = 0; i < data.length; i++) data[i] = (i * 7919) % 251;
    const hi = await packImg({ label: 0 }, { data, shape: [32, 32, 3] }, 95);
    const lo = await packImg({ label: 0 }, { data, shape: [32, 32, 3] }, 10);
    expect(lo.length).toBeLessThan(hi.length);
    const [, img] = await unpackImg(hi, -1);
    expect(img.shape).toEqual([32, 32, 3]);
  });

  it('refuses float images, bad formats and bad flags', async () => {
    const f = { data: new Float32Array(3), shape: [1, 1, 3] as const };
    await expect(packImg({ label: 0 }, f)).rejects.toThrow(/uint8/);
    const u = { data: new Uint8Array(3), shape: [1, 1, 3] as const };
    await expect(packImg({ label: 0 }, u, 95, '.bmp')).rejects.toThrow(MXNetError);
    const s = await packImg({ label: 0 }, u, 95, '.png');
    await expect(unpackImg(s, 2 as 1)).rejects.toThrow(/color flag/);
    await expect(unpackImg(new Uint8Array(30))).rejects.toThrow(/cannot decode/);
  });
});
