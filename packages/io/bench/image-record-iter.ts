/**
 * ImageRecordIter throughput (standalone: `npx tsx --tsconfig bench/tsconfig.json
 * bench/image-record-iter.ts`, after building @mx/io). 128 JPEGs of 500x375 (quality 95, as im2rec
 * writes them) are packed into a temp .rec/.idx; the iterator runs MXNet's training setting —
 * data_shape (3, 224, 224), rand_crop, rand_mirror, mean/std normalization, batch 64, 2
 * preprocess_threads — and is compared with sharp's plain decode to raw RGB of the same JPEGs on 2
 * worker threads, one image in flight per thread (the iterator's workers also decode one at a
 * time). Images/s, median of 5 passes each, taken in turns. Reported, never asserted.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { ImageRecordIter, MXIndexedRecordIO, recordio } from '@mx/io';
import { createRuntime } from '@mx/ndarray';
import sharp from 'sharp';

const COUNT = 128;
const W = 500;
const H = 375;
const THREADS = 2;
const PASSES = 5;

function pixels(seed: number): Uint8Array {
  const out = new Uint8Array(W * H * 3);
  let x = seed * 2654435761 + 1;
  for (let y = 0; y < H; y++) {
    for (let i = 0; i < W; i++) {
      x = (x * 1103515245 + 12345) % 2 ** 31;
      const noise = (x >>> 8) % 24;
      const o = (y * W + i) * 3;
      out[o] = ((i * 255) / W + noise) & 0xff;
      out[o + 1] = ((y * 255) / H + noise) & 0xff;
      out[o + 2] = (((i + y + seed * 13) % 256) + noise) & 0xff;
    }
  }
  return out;
}

const DECODE_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const sharp = require(workerData.sharp);
parentPort.on('message', async (jpegs) => {
  let bytes = 0;
  for (const j of jpegs) bytes += (await sharp(j, { ignoreIcc: true }).raw().toBuffer()).length;
  parentPort.postMessage(bytes);
});
`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number;

const dir = mkdtempSync(join(tmpdir(), 'mx-bench-imgrec-'));
try {
  const jpegs: Uint8Array[] = [];
  for (let k = 0; k < COUNT; k++) {
    jpegs.push(
      new Uint8Array(
        await sharp(pixels(k), { raw: { width: W, height: H, channels: 3 } })
          .jpeg({ quality: 95 })
          .toBuffer(),
      ),
    );
  }
  const rec = join(dir, 'bench.rec');
  const idx = join(dir, 'bench.idx');
  const w = new MXIndexedRecordIO(idx, rec, 'w');
  for (const [k, j] of jpegs.entries()) w.writeIdx(k, recordio.pack({ label: k % 10, id: k }, j));
  w.close();

  const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 1024 })] });
  const iter = new ImageRecordIter(rt, {
    path_imgrec: rec,
    path_imgidx: idx,
    data_shape: [3, 224, 224],
    batch_size: 64,
    rand_crop: true,
    rand_mirror: true,
    mean_r: 123.68,
    mean_g: 116.28,
    mean_b: 103.53,
    std_r: 58.395,
    std_g: 57.12,
    std_b: 57.375,
    preprocess_threads: THREADS,
    prefetch_buffer: 4,
  });
  const sharpPath = createRequire(import.meta.url).resolve('sharp');
  const workers = Array.from({ length: THREADS }, () => {
    const wk = new Worker(DECODE_WORKER, { eval: true, workerData: { sharp: sharpPath } });
    wk.unref();
    return wk;
  });
  const decodePass = async () => {
    const half = Math.ceil(COUNT / THREADS);
    await Promise.all(
      workers.map(
        (wk, t) =>
          new Promise<void>((resolve) => {
            wk.once('message', () => resolve());
            wk.ref();
            wk.postMessage(jpegs.slice(t * half, (t + 1) * half));
          }),
      ),
    );
    for (const wk of workers) wk.unref();
  };
  const iterPass = () => {
    iter.reset();
    for (let b = iter.next(); b !== null; b = iter.next()) b.dispose();
  };
  await decodePass(); // warm-up: sharp loaded in the workers
  iterPass();
  const tDecode: number[] = [];
  const tIter: number[] = [];
  for (let p = 0; p < PASSES; p++) {
    let t0 = performance.now();
    await decodePass();
    tDecode.push(performance.now() - t0);
    t0 = performance.now();
    iterPass();
    tIter.push(performance.now() - t0);
  }
  iter.dispose();
  await iter.closed();
  for (const wk of workers) await wk.terminate();
  const decodeRate = (COUNT * 1000) / median(tDecode);
  const iterRate = (COUNT * 1000) / median(tIter);
  console.log(`sharp plain decode, ${THREADS} threads: ${decodeRate.toFixed(1)} images/s`);
  console.log(
    `ImageRecordIter (crop 224 + mirror + normalize, batch 64, ${THREADS} threads): ${iterRate.toFixed(1)} images/s`,
  );
  console.log(`ratio: ${(iterRate / decodeRate).toFixed(2)}x`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
