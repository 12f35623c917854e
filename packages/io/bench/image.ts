/**
 * Image pipeline throughput on this machine: 50 JPEGs of 500x375 (quality 95, as im2rec writes
 * them; smooth gradients, shapes and noise, made with sharp into a temp dir and read back into
 * memory), then images/s, median of 7 interleaved runs, for:
 *   - sharp's plain decode to raw RGB (`sharp(buf).raw().toBuffer()`), the baseline;
 *   - `image.host.imdecode` alone (sharp plus the conversion to an HWC host image), and the same
 *     through `imageDecoder()`, which loads sharp once (imdecode's per-call dynamic import costs
 *     ~3 us in plain Node but ~0.14 ms under tsx's loader hooks);
 *   - the training pipeline (with imageDecoder): decode, random crop 224x224, random mirror, cast to float32 and
 *     normalize (createAugmenter({ dataShape: [3, 224, 224], randCrop, randMirror, mean, std })),
 *   - the augmentation alone on already decoded images;
 * each one image at a time (await per image) and 4 at a time (4 decodes in flight on libuv's
 * thread pool; the augmentation runs on the calling thread).
 * Reads the sources (no build needed):  cd packages/io && npx tsx bench/image.ts [images]
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { createAugmenter } from '../src/image/create-augmenter.js';
import { decodeImage, imageDecoder } from '../src/image/decode.js';
import type { HostImage } from '../src/image/host-image.js';
import { ImageRandom } from '../src/image/random.js';

const COUNT = Number(process.argv[2] ?? 50);
const W = 500;
const H = 375;
const RUNS = 7;
const CONCURRENCY = 4;

function pixels(seed: number): Uint8Array {
  const out = new Uint8Array(W * H * 3);
  let x = seed * 2654435761 + 1;
  const cx = (seed * 97) % W;
  const cy = (seed * 61) % H;
  for (let y = 0; y < H; y++) {
    for (let i = 0; i < W; i++) {
      x = (x * 1103515245 + 12345) % 2 ** 31;
      const inDisk = (i - cx) ** 2 + (y - cy) ** 2 < 90 ** 2;
      const noise = (x >>> 8) % 24;
      const o = (y * W + i) * 3;
      out[o] = ((i * 255) / W + noise + (inDisk ? 90 : 0)) & 0xff;
      out[o + 1] = ((y * 255) / H + noise) & 0xff;
      out[o + 2] = (((i + y + seed * 13) % 256) + noise) & 0xff;
    }
  }
  return out;
}

async function makeJpegs(dir: string): Promise<Uint8Array[]> {
  const files: Uint8Array[] = [];
  for (let k = 0; k < COUNT; k++) {
    const jpeg = await sharp(pixels(k), { raw: { width: W, height: H, channels: 3 } })
      .jpeg({ quality: 95 })
      .toBuffer();
    const path = join(dir, `img-${k}.jpg`);
    writeFileSync(path, jpeg);
    files.push(new Uint8Array(readFileSync(path)));
  }
  return files;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

/** Runs `one` over all images, `concurrency` at a time; returns ms. */
async function timeAll(
  files: readonly Uint8Array[],
  concurrency: number,
  one: (b: Uint8Array) => Promise<unknown>,
) {
  const t0 = performance.now();
  for (let i = 0; i < files.length; i += concurrency) {
    await Promise.all(files.slice(i, i + concurrency).map(one));
  }
  return performance.now() - t0;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'mx-image-bench-'));
  try {
    const files = await makeJpegs(dir);
    const kb = files.reduce((s, f) => s + f.length, 0) / files.length / 1024;
    const augs = createAugmenter({
      dataShape: [3, 224, 224],
      randCrop: true,
      randMirror: true,
      mean: true,
      std: true,
      rng: new ImageRandom(0),
    });
    const augment = (img: HostImage): HostImage => augs.reduce((x, a) => a.apply(x), img);
    const decoded = await Promise.all(files.map((f) => decodeImage(f)));
    const decode = await imageDecoder();

    const cases: Record<string, (c: number) => Promise<number>> = {
      'sharp raw decode (baseline)': (c) => timeAll(files, c, (b) => sharp(b).raw().toBuffer()),
      'image.host.imdecode': (c) => timeAll(files, c, (b) => decodeImage(b)),
      'image.host.imageDecoder()': (c) => timeAll(files, c, (b) => decode(b)),
      'decode + crop 224 + mirror + normalize': (c) =>
        timeAll(files, c, async (b) => augment(await decode(b))),
      'augmentation only (decoded images)': async () => {
        const t0 = performance.now();
        for (const img of decoded) augment(img);
        return performance.now() - t0;
      },
    };
    const ms: Record<string, number[]> = {};
    for (const c of [1, CONCURRENCY]) for (const name of Object.keys(cases)) await cases[name]?.(c); // warm-up
    for (let r = 0; r < RUNS; r++) {
      for (const c of [1, CONCURRENCY]) {
        for (const [name, f] of Object.entries(cases)) {
          if (name.startsWith('augmentation') && c !== 1) continue;
          const key = `${name}|${c}`;
          ms[key] ??= [];
          ms[key].push(await f(c));
        }
      }
    }
    const rate = (key: string) => (files.length * 1000) / median(ms[key] ?? [Number.NaN]);
    console.log(
      `${COUNT} JPEGs ${W}x${H} q95 (${kb.toFixed(1)} KiB avg), Node ${process.version}, ` +
        `${availableParallelism()} cores, sharp ${sharp.versions.sharp} (libvips ${sharp.versions.vips}), ` +
        `median of ${RUNS}`,
    );
    for (const c of [1, CONCURRENCY]) {
      const base = rate(`sharp raw decode (baseline)|${c}`);
      console.log(`\n${c === 1 ? 'one image at a time' : `${c} images in flight`}:`);
      for (const name of Object.keys(cases)) {
        const key = `${name}|${c}`;
        if (!ms[key]) continue;
        const r = rate(key);
        console.log(
          `  ${name.padEnd(40)} ${r.toFixed(0).padStart(6)} images/s   ${(r / base).toFixed(2)}x baseline`,
        );
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
