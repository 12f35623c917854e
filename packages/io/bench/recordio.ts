/**
 * RecordIO throughput on this machine: writes a .rec of "image-sized" records (20-200 KB) and one of
 * small records (100-2000 bytes) to the temp dir, then times sequential reads through MXRecordIO
 * (sync, Node file) and RecordIOBlobReader (async, `fs.openAsBlob`) against raw reads of the same
 * file in 1 MiB chunks (readSync, and Blob slices), page cache warm for all. Median of 5 runs each.
 * Reads the sources (no build needed):  cd packages/io && npx tsx bench/recordio.ts [MiB]
 */
import { closeSync, mkdtempSync, openAsBlob, openSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MXRecordIO, RecordIOBlobReader } from '../src/recordio/index.js';

const MIB = 1 << 20;
const target = Number(process.argv[2] ?? 128) * MIB;
const dir = mkdtempSync(join(tmpdir(), 'mx-recordio-bench-'));

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

function time(f: () => void): number {
  const t = performance.now();
  f();
  return performance.now() - t;
}

async function timeAsync(f: () => Promise<void>): Promise<number> {
  const t = performance.now();
  await f();
  return performance.now() - t;
}

function write(path: string, min: number, max: number): { records: number; ms: number } {
  let x = 1;
  let records = 0;
  const scratch = new Uint8Array(max);
  for (let i = 0; i < scratch.length; i++) scratch[i] = (i * 31 + 7) & 0xff;
  const ms = time(() => {
    const w = new MXRecordIO(path, 'w');
    while (w.tell() < target) {
      x = (x * 1103515245 + 12345) % 2 ** 31;
      w.write(scratch.subarray(0, min + (x % (max - min))));
      records++;
    }
    w.close();
  });
  return { records, ms };
}

async function bench(label: string, min: number, max: number): Promise<void> {
  const path = join(dir, `${label}.rec`);
  const wrote = write(path, min, max);
  const size = statSync(path).size;
  const mbs = (ms: number): string => `${((size / MIB) * 1000) / ms}`.slice(0, 6);
  const raw = (): void => {
    const fd = openSync(path, 'r');
    const buf = new Uint8Array(MIB);
    for (let pos = 0, n = 1; n > 0; pos += n) n = readSync(fd, buf, 0, MIB, pos);
    closeSync(fd);
  };
  const ours = (): void => {
    const r = new MXRecordIO(path, 'r');
    let n = 0;
    while (r.read() !== null) n++;
    r.close();
    if (n !== wrote.records) throw new Error(`read ${n} of ${wrote.records} records`);
  };
  const blob = await openAsBlob(path);
  const rawBlob = async (): Promise<void> => {
    for (let pos = 0; pos < blob.size; pos += MIB) await blob.slice(pos, pos + MIB).arrayBuffer();
  };
  const oursBlob = async (): Promise<void> => {
    const r = await RecordIOBlobReader.open(blob);
    let n = 0;
    while ((await r.read()) !== null) n++;
    if (n !== wrote.records) throw new Error(`read ${n} of ${wrote.records} records`);
  };
  raw();
  const rawMs: number[] = [];
  const oursMs: number[] = [];
  const rawBlobMs: number[] = [];
  const oursBlobMs: number[] = [];
  for (let i = 0; i < 5; i++) {
    rawMs.push(time(raw));
    oursMs.push(time(ours));
    rawBlobMs.push(await timeAsync(rawBlob));
    oursBlobMs.push(await timeAsync(oursBlob));
  }
  console.log(
    `${label}: ${wrote.records} records, ${(size / MIB).toFixed(1)} MiB; write ${mbs(wrote.ms)} MB/s (one run, cold)\n` +
      `  sync  read: MXRecordIO ${mbs(median(oursMs))} MiB/s vs raw readSync ${mbs(median(rawMs))} MiB/s\n` +
      `  async read: RecordIOBlobReader ${mbs(median(oursBlobMs))} MiB/s vs raw Blob slices ${mbs(median(rawBlobMs))} MiB/s`,
  );
  rmSync(path);
}

try {
  await bench('images-20-200KB', 20_000, 200_000);
  await bench('small-100-2000B', 100, 2000);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
