/**
 * CSVIter throughput and memory (`pnpm bench`, workload `csv`). Writes a CSV of 200 MB (the size
 * issue 13 names) into a temporary directory — rows of 32 float32 values as NumPy's '%.6f' prints
 * them, plus a label file — then reads it with CSVIter in batches of 256 uploaded to cpu-wasm
 * NDArrays and disposed (the iterator as a training loop sees it), 3 whole passes, median. Reports
 * MB/s of CSV text and the peak RSS while reading (process.memoryUsage().rss sampled every 64
 * batches; the figure is the peak above the RSS before the pass, and the absolute peak). For scale,
 * the first 20 MB read the naive way (text in memory + split + Number), one pass. ~30 s in all; the
 * files are deleted at the end. `MX_BENCH_CSV_MB` overrides the size.
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fmt, type Report, summarize, want } from '@mx/bench-kit';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { CSVIter } from '@mx/io';
import { createRuntime } from '@mx/ndarray';

const SIZE_MB = Number(process.env.MX_BENCH_CSV_MB ?? 200);
const BATCH = 256;
const COLS = 32;
const PASSES = 3;
const MIB = 2 ** 20;

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

function generate(dir: string): { data: string; label: string; rows: number } {
  const data = join(dir, 'data.csv');
  const label = join(dir, 'label.csv');
  const fd = openSync(data, 'w');
  const fl = openSync(label, 'w');
  const next = rng(42);
  const target = SIZE_MB * 1e6;
  let bytes = 0;
  let rows = 0;
  try {
    while (bytes < target) {
      const lines: string[] = [];
      const labels: string[] = [];
      for (let r = 0; r < 2000; r++) {
        const fields: string[] = [];
        for (let c = 0; c < COLS; c++) fields.push(((next() - 0.5) * 20).toFixed(6));
        lines.push(fields.join(','));
        labels.push(String(Math.floor(next() * 10)));
      }
      bytes += writeSync(fd, `${lines.join('\n')}\n`);
      writeSync(fl, `${labels.join('\n')}\n`);
      rows += 2000;
    }
  } finally {
    closeSync(fd);
    closeSync(fl);
  }
  return { data, label, rows };
}

/** Peak RSS since construction, from samples. */
class Rss {
  readonly base = process.memoryUsage().rss;
  peak = this.base;
  sample(): void {
    const rss = process.memoryUsage().rss;
    if (rss > this.peak) this.peak = rss;
  }
  get extraMiB(): number {
    return (this.peak - this.base) / MIB;
  }
}

/** Workload `csv`: CSVIter over a 200 MB file, MB/s and peak RSS; a naive parse for scale. */
export async function csvBench(report: Report): Promise<void> {
  if (!want('csv')) return;
  const dir = mkdtempSync(join(tmpdir(), 'mx-csv-bench-'));
  const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })] });
  try {
    const g0 = performance.now();
    const { data, label, rows } = generate(dir);
    const genS = (performance.now() - g0) / 1000;
    const fileBytes = statSync(data).size;
    const mbs = (ms: number, bytes = fileBytes): number => bytes / 1e6 / (ms / 1000);

    const times: number[] = [];
    let peakExtra = 0;
    let peakAbs = 0;
    let batches = 0;
    for (let p = 0; p < PASSES; p++) {
      globalThis.gc?.();
      const rss = new Rss();
      const iter = new CSVIter(rt, {
        data_csv: data,
        label_csv: label,
        data_shape: [COLS],
        batch_size: BATCH,
        round_batch: false,
      });
      batches = 0;
      const start = performance.now();
      for (const b of iter) {
        b.dispose();
        if ((++batches & 63) === 0) rss.sample();
      }
      times.push(performance.now() - start);
      rss.sample();
      iter.dispose();
      peakExtra = Math.max(peakExtra, rss.extraMiB);
      peakAbs = Math.max(peakAbs, rss.peak / MIB);
    }
    const s = summarize(times);
    report.add(
      'csv.CSVIter',
      {
        MB: Number((fileBytes / 1e6).toFixed(0)),
        rows,
        cols: COLS,
        batchSize: BATCH,
        labels: true,
        passes: PASSES,
      },
      s,
      {
        rate: { value: mbs(s.medianMs), unit: 'MB/s' },
        extra: {
          peakRssAboveBaseMiB: peakExtra,
          peakRssMiB: peakAbs,
          rowsPerSec: rows / (s.medianMs / 1000),
          generateSeconds: genS,
        },
      },
      `${fmt(mbs(s.medianMs), 1)} MB/s (${fmt(s.medianMs / 1000)} s per ${fmt(fileBytes / 1e6, 0)} MB pass, ` +
        `${batches} batches of ${BATCH} with labels), peak RSS +${fmt(peakExtra, 1)} MiB above the ` +
        `pass's start (${fmt(peakAbs, 0)} MiB absolute)`,
    );

    // For scale: what a one-off script does, on the first 20 MB.
    globalThis.gc?.();
    const rss = new Rss();
    const part = Math.min(fileBytes, 20e6);
    const start = performance.now();
    const head = new Uint8Array(part);
    const fd = openSync(data, 'r');
    readSync(fd, head, 0, part, 0);
    closeSync(fd);
    const lines = Buffer.from(head.buffer, 0, part).toString('latin1').split('\n');
    lines.pop();
    let sum = 0;
    for (const line of lines) {
      const values = line.split(',').map((v) => Math.fround(Number(v)));
      sum += values[0] as number;
    }
    rss.sample();
    const ms = performance.now() - start;
    report.add(
      'csv.naive-split',
      { MB: part / 1e6, how: 'whole text in memory + split + Number', passes: 1 },
      summarize([ms]),
      {
        rate: { value: mbs(ms, part), unit: 'MB/s' },
        extra: { peakRssAboveBaseMiB: rss.extraMiB, checksum: sum },
      },
      `${fmt(mbs(ms, part), 1)} MB/s, peak RSS +${fmt(rss.extraMiB, 1)} MiB (first ${fmt(part / 1e6, 0)} MB, one pass, for scale)`,
    );
  } finally {
    await rt.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}
