/**
 * RecordIO sequential read throughput (`pnpm bench`, workload `recordio`). Writes a .rec of
 * "image-sized" records (20-200 KB) and one of small records (100-2000 bytes) to the temp dir, then
 * times, in turns so a slow phase of this shared machine hits every variant alike, whole sequential
 * reads through MXRecordIO — `read()` (records the caller owns, as Python's read copies) and
 * `readView()` (views valid until the next read, as MXNet's C API read returns a pointer into the
 * reader's buffer) — and RecordIOBlobReader (async, `fs.openAsBlob`), against raw reads of the same
 * file in 1 MiB chunks (readSync into one buffer, and Blob slices), page cache warm for all; also,
 * as context for what owned records cost, `readFileSync` of the whole file and readSync into a
 * fresh 256 KiB buffer per read (memory that is not cache-hot: the floor for an owning reader).
 * The goal: ≥ 0.8× the raw read of the same file, reported as met or missed for both read
 * paths, never asserted. Files are deleted at the end.
 */
import {
  closeSync,
  mkdtempSync,
  openAsBlob,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fmt, type Report, timeInterleaved, want } from '@mx/bench-kit';
import { MXRecordIO, RecordIOBlobReader } from '@mx/io';

const MIB = 1 << 20;
/** The goal of issue 13: sequential read ≥ 0.8× a raw read of the same file. */
const GOAL = 0.8;
/** Buffer size of the fresh-buffer raw read (the reader's fresh chunk size, LEND_CHUNK). */
const FRESH = 256 << 10;

/** Writes `target` bytes of records sized uniformly in [min, max); returns count and ms. */
function write(path: string, target: number, min: number, max: number): { records: number; ms: number } {
  let x = 1;
  let records = 0;
  const scratch = new Uint8Array(max);
  for (let i = 0; i < scratch.length; i++) scratch[i] = (i * 31 + 7) & 0xff;
  const t0 = performance.now();
  const w = new MXRecordIO(path, 'w');
  while (w.tell() < target) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    w.write(scratch.subarray(0, min + (x % (max - min))));
    records++;
  }
  w.close();
  return { records, ms: performance.now() - t0 };
}

async function benchFile(
  report: Report,
  dir: string,
  label: string,
  mib: number,
  min: number,
  max: number,
): Promise<void> {
  const path = join(dir, `${label}.rec`);
  const wrote = write(path, mib * MIB, min, max);
  const size = statSync(path).size;
  const mbs = (ms: number): number => size / 1e6 / (ms / 1000);
  const check = (n: number): void => {
    if (n !== wrote.records) throw new Error(`read ${n} of ${wrote.records} records`);
  };
  const raw = (): void => {
    const fd = openSync(path, 'r');
    const buf = new Uint8Array(MIB);
    for (let pos = 0, n = 1; n > 0; pos += n) n = readSync(fd, buf, 0, MIB, pos);
    closeSync(fd);
  };
  // The floor for records the caller owns: the same reads, each into a fresh buffer (never reused,
  // as a returned record's bytes cannot be), so the copy lands in memory that is not cache-hot.
  const rawFresh = (): void => {
    const fd = openSync(path, 'r');
    for (let pos = 0, n = 1; n > 0; pos += n) n = readSync(fd, Buffer.allocUnsafeSlow(FRESH), 0, FRESH, pos);
    closeSync(fd);
  };
  const readFile = (): void => {
    if (readFileSync(path).byteLength !== size) throw new Error('short readFileSync');
  };
  const ours = (): void => {
    const r = new MXRecordIO(path, 'r');
    let n = 0;
    while (r.read() !== null) n++;
    r.close();
    check(n);
  };
  // MXNet's C API read (MXRecordIOReaderReadRecord): a view into the reader's buffer per record.
  const oursView = (): void => {
    const r = new MXRecordIO(path, 'r');
    let n = 0;
    while (r.readView() !== null) n++;
    r.close();
    check(n);
  };
  const blob = await openAsBlob(path);
  const rawBlob = async (): Promise<void> => {
    for (let pos = 0; pos < blob.size; pos += MIB) await blob.slice(pos, pos + MIB).arrayBuffer();
  };
  const oursBlob = async (): Promise<void> => {
    const r = await RecordIOBlobReader.open(blob);
    let n = 0;
    while ((await r.read()) !== null) n++;
    check(n);
  };
  const none = (): void => {};
  // Each variant runs after the one before it, whose garbage can slow it: the variants that
  // allocate the most (readFile's whole-file buffer, the owned records) come right before the async
  // Blob reads, whose times are dominated by waiting; raw and readView reuse their buffers and run
  // next to each other.
  const [sRaw, sView, sOurs, sRawFresh, sReadFile, sRawBlob, sOursBlob] = await timeInterleaved(
    [
      { run: raw, dispose: none },
      { run: oursView, dispose: none },
      { run: ours, dispose: none },
      { run: rawFresh, dispose: none },
      { run: readFile, dispose: none },
      { run: rawBlob, dispose: none },
      { run: oursBlob, dispose: none },
    ],
    { warm: 1, budgetMs: 5000, blockMs: 0, minSamples: 5 },
  );
  if (!sRaw || !sOurs || !sRawBlob || !sOursBlob || !sReadFile || !sRawFresh || !sView)
    throw new Error('timeInterleaved lost a variant');
  const params = { file: label, records: wrote.records, MB: Number((size / 1e6).toFixed(1)), chunk: '1 MiB' };
  const ratio = sRaw.medianMs / sOurs.medianMs;
  report.add(
    `recordio.read.${label}`,
    { ...params, reader: 'MXRecordIO (readSync)' },
    sOurs,
    {
      rate: { value: mbs(sOurs.medianMs), unit: 'MB/s' },
      target: `≥ ${GOAL}× raw readSync of the same file`,
      extra: {
        rawMBps: mbs(sRaw.medianMs),
        ratioToRaw: ratio,
        goal: GOAL,
        goalMet: ratio >= GOAL,
        readFileSyncMBps: mbs(sReadFile.medianMs),
        rawFreshMBps: mbs(sRawFresh.medianMs),
        ratioToRawFresh: sRawFresh.medianMs / sOurs.medianMs,
        ratioToReadFileSync: sReadFile.medianMs / sOurs.medianMs,
        writeMBps: mbs(wrote.ms),
      },
    },
    `MXRecordIO ${fmt(mbs(sOurs.medianMs), 0)} MB/s vs raw readSync ${fmt(mbs(sRaw.medianMs), 0)} MB/s = ` +
      `${fmt(ratio)}× (goal ≥ ${GOAL}: ${ratio >= GOAL ? 'met' : 'missed'}); raw readSync into fresh ` +
      `${FRESH >> 10} KiB buffers ${fmt(mbs(sRawFresh.medianMs), 0)} MB/s; readFileSync ` +
      `${fmt(mbs(sReadFile.medianMs), 0)} MB/s; ${wrote.records} records, ` +
      `${fmt(size / 1e6, 1)} MB; write ${fmt(mbs(wrote.ms), 0)} MB/s (one cold run)`,
  );
  const viewRatio = sRaw.medianMs / sView.medianMs;
  report.add(
    `recordio.readView.${label}`,
    { ...params, reader: 'MXRecordIO.readView (views valid until the next read, as MXNet C API reads)' },
    sView,
    {
      rate: { value: mbs(sView.medianMs), unit: 'MB/s' },
      target: `≥ ${GOAL}× raw readSync of the same file`,
      extra: { rawMBps: mbs(sRaw.medianMs), ratioToRaw: viewRatio, goal: GOAL, goalMet: viewRatio >= GOAL },
    },
    `MXRecordIO.readView ${fmt(mbs(sView.medianMs), 0)} MB/s vs raw readSync ${fmt(mbs(sRaw.medianMs), 0)} MB/s = ` +
      `${fmt(viewRatio)}× (goal ≥ ${GOAL}: ${viewRatio >= GOAL ? 'met' : 'missed'})`,
  );
  const blobRatio = sRawBlob.medianMs / sOursBlob.medianMs;
  report.add(
    `recordio.blob.${label}`,
    { ...params, reader: 'RecordIOBlobReader (fs.openAsBlob)' },
    sOursBlob,
    {
      rate: { value: mbs(sOursBlob.medianMs), unit: 'MB/s' },
      extra: { rawBlobMBps: mbs(sRawBlob.medianMs), ratioToRaw: blobRatio },
    },
    `RecordIOBlobReader ${fmt(mbs(sOursBlob.medianMs), 0)} MB/s vs raw Blob slices ` +
      `${fmt(mbs(sRawBlob.medianMs), 0)} MB/s = ${fmt(blobRatio)}×`,
  );
  rmSync(path);
}

/** Workload `recordio`: a 128 MiB file of image-sized records and a 32 MiB one of small records. */
export async function recordioBench(report: Report): Promise<void> {
  if (!want('recordio')) return;
  const dir = mkdtempSync(join(tmpdir(), 'mx-recordio-bench-'));
  try {
    await benchFile(report, dir, 'images-20-200KB', 128, 20_000, 200_000);
    await benchFile(report, dir, 'small-100-2000B', 32, 100, 2000);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
