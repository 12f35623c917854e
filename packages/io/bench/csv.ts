/**
 * CSVIter throughput and memory: `cd packages/io && npx tsx bench/csv.ts [sizeMB=200] [batch=256]`.
 *
 * Writes a CSV of about `sizeMB` MB into a temporary directory (rows of 32 float32 values as
 * NumPy's '%.6f' would print them, plus a label file), then reads it three ways and reports MB/s of
 * CSV text and the peak RSS while reading (process.memoryUsage().rss sampled every 64 rows or
 * batch, minus the RSS before):
 *
 * - `reader`: CsvReader.readRow into one reused Float32Array (the parser alone);
 * - `CSVIter`: batches of `batch` rows uploaded to cpu-wasm NDArrays and disposed (the iterator as
 *   a training loop sees it), with labels;
 * - `naive` (first 20 MB only, for scale): the text in memory + split + Number, what a one-off
 *   script does.
 *
 * The file is deleted at the end. Not part of `pnpm bench` (it needs ~sizeMB of free disk).
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime } from '@mx/ndarray';
import { CSVIter } from '../src/iters/csv-iter.js';
import { CsvReader } from '../src/iters/csv-reader.js';

const SIZE_MB = Number(process.argv[2] ?? 200);
const BATCH = Number(process.argv[3] ?? 256);
const COLS = 32;

/** xorshift32: deterministic values without Math.random. */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 4294967296;
  };
}

function generate(dir: string): { data: string; label: string; rows: number; bytes: number } {
  const data = join(dir, 'data.csv');
  const label = join(dir, 'label.csv');
  const fd = openSync(data, 'w');
  const fl = openSync(label, 'w');
  const next = rng(42);
  const target = SIZE_MB * 1e6;
  let bytes = 0;
  let rows = 0;
  while (bytes < target) {
    const lines: string[] = [];
    const labels: string[] = [];
    for (let r = 0; r < 2000; r++) {
      const fields: string[] = [];
      for (let c = 0; c < COLS; c++) fields.push(((next() - 0.5) * 20).toFixed(6));
      lines.push(fields.join(','));
      labels.push(String(Math.floor(next() * 10)));
    }
    const chunk = `${lines.join('\n')}\n`;
    bytes += writeSync(fd, chunk);
    writeSync(fl, `${labels.join('\n')}\n`);
    rows += 2000;
  }
  closeSync(fd);
  closeSync(fl);
  return { data, label, rows, bytes };
}

class Rss {
  readonly base = process.memoryUsage().rss;
  peak = this.base;
  sample(): void {
    const rss = process.memoryUsage().rss;
    if (rss > this.peak) this.peak = rss;
  }
  get extraMB(): number {
    return (this.peak - this.base) / 2 ** 20;
  }
}

function report(name: string, bytes: number, seconds: number, rss: Rss, extra = ''): void {
  const mbs = bytes / 1e6 / seconds;
  console.log(
    `${name.padEnd(8)} ${mbs.toFixed(1).padStart(7)} MB/s  ${seconds.toFixed(2)} s  ` +
      `peak RSS +${rss.extraMB.toFixed(1)} MiB (base ${(rss.base / 2 ** 20).toFixed(0)} MiB)${extra}`,
  );
}

function main(): void {
  const dir = mkdtempSync(join(tmpdir(), 'mx-csv-bench-'));
  try {
    const t0 = performance.now();
    const { data, label, rows, bytes } = generate(dir);
    console.log(
      `generated ${rows} rows x ${COLS} (${(bytes / 1e6).toFixed(0)} MB) in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
    const fileBytes = statSync(data).size;

    {
      globalThis.gc?.();
      const rss = new Rss();
      const reader = new CsvReader(data, { what: 'data_csv', op: 'bench', kind: 'float32' });
      const row = new Float32Array(COLS);
      let n = 0;
      let sum = 0;
      const start = performance.now();
      while (reader.readRow(row, 0, COLS) >= 0) {
        sum += row[0] as number;
        if ((++n & 63) === 0) rss.sample();
      }
      const s = (performance.now() - start) / 1000;
      reader.close();
      if (n !== rows) throw new Error(`read ${n} rows, wrote ${rows}`);
      report(
        'reader',
        fileBytes,
        s,
        rss,
        `  (${(n / s / 1e6).toFixed(2)} M rows/s, checksum ${sum.toFixed(3)})`,
      );
    }

    {
      globalThis.gc?.();
      const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })] });
      const rss = new Rss();
      const iter = new CSVIter(rt, {
        data_csv: data,
        label_csv: label,
        data_shape: [COLS],
        batch_size: BATCH,
        round_batch: false,
      });
      let batches = 0;
      const start = performance.now();
      for (const b of iter) {
        b.dispose();
        if ((++batches & 63) === 0) rss.sample();
      }
      const s = (performance.now() - start) / 1000;
      iter.dispose();
      report('CSVIter', fileBytes, s, rss, `  (${batches} batches of ${BATCH}, with labels)`);
      void rt.dispose();
    }

    {
      globalThis.gc?.();
      const rss = new Rss();
      const part = Math.min(fileBytes, 20e6);
      const start = performance.now();
      const head = new Uint8Array(part);
      const fd = openSync(data, 'r');
      readSync(fd, head, 0, part, 0);
      closeSync(fd);
      const text = Buffer.from(head.buffer, 0, part).toString('latin1');
      const lines = text.split('\n');
      lines.pop();
      let sum = 0;
      for (const line of lines) {
        const values = line.split(',').map((v) => Math.fround(Number(v)));
        sum += values[0] as number;
      }
      rss.sample();
      const s = (performance.now() - start) / 1000;
      report(
        'naive',
        part,
        s,
        rss,
        `  (first ${(part / 1e6).toFixed(0)} MB held as one string, checksum ${sum.toFixed(3)})`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
