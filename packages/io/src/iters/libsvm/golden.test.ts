/**
 * Against dmlc-core itself (__golden__/libsvm/rows.json, written by tools/golden/libsvm/build.sh
 * with dmlc's LibSVM parser created as MXNet's LibSVMIter creates it): every part of every sample
 * file, for several num_parts, must give the same rows — labels, weights, qids, indices and the
 * exact float32 values — through the line parser, and the same CSR rows and labels through
 * LibSVMReader (indexing modes 0, 1 and -1 included). Files are read through small buffers so
 * lines straddle refills, and as bytes where the input is one file.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import golden from '../../__golden__/libsvm/rows.json' with { type: 'json' };
import { LibSVMLineParser } from './line.js';
import { type HostCsr, LibSVMReader } from './reader.js';
import { inputFiles, LineStream, partRange } from './source.js';

const FIXTURES = fileURLToPath(new URL('../../__fixtures__/libsvm/', import.meta.url));

type Num = number | string;
interface Block {
  offset: number[];
  label: Num[];
  weight: Num[] | null;
  qid: number[] | null;
  /** null when the block has no features at all (dmlc's pointer to an empty vector). */
  index: number[] | null;
  value: Num[] | null;
}
interface Case {
  uri: string;
  num_parts: number;
  parts: Block[][];
}

interface Row {
  label: number;
  weight: number | null;
  qid: number | null;
  index: number[];
  value: number[];
}

function num(v: Num): number {
  if (v === 'inf') return Number.POSITIVE_INFINITY;
  if (v === '-inf') return Number.NEGATIVE_INFINITY;
  if (v === 'nan') return Number.NaN;
  return Math.fround(v as number);
}

function goldenRows(blocks: Block[]): Row[] {
  const rows: Row[] = [];
  for (const b of blocks) {
    for (let r = 0; r + 1 < b.offset.length; r++) {
      const [s, e] = [b.offset[r] as number, b.offset[r + 1] as number];
      rows.push({
        label: num(b.label[r] as Num),
        weight: b.weight === null ? null : num(b.weight[r] as Num),
        qid: b.qid === null ? null : (b.qid[r] as number),
        index: (b.index ?? []).slice(s, e),
        value: (b.value ?? []).slice(s, e).map(num),
      });
    }
  }
  return rows;
}

function split(uri: string): { paths: string; mode: number } {
  const [path, args] = uri.split('?') as [string, string | undefined];
  const mode = args === undefined ? 0 : Number(args.replace('indexing_mode=', ''));
  return {
    paths: path
      .split(';')
      .map((p) => FIXTURES + p)
      .join(';'),
    mode,
  };
}

/** The rows our line parser reads from one part (indices as written). */
function ourRows(paths: string, part: number, numParts: number, bufferBytes: number): Row[] {
  const files = inputFiles(paths, 'data_libsvm', 'test');
  const lines = new LineStream(files, partRange(files, part, numParts), 'data_libsvm', bufferBytes);
  const parser = new LibSVMLineParser('test', '');
  const rows: Row[] = [];
  while (lines.next()) {
    if (!parser.parse(lines.buf, lines.start, lines.end, lines)) continue;
    rows.push({
      label: parser.label,
      weight: Number.isNaN(parser.weight) ? null : parser.weight,
      qid: parser.qid < 0 ? null : parser.qid,
      index: Array.from(parser.indices.subarray(0, parser.nnz)),
      value: Array.from(parser.values.subarray(0, parser.nnz)),
    });
  }
  lines.close();
  return rows;
}

/** Rows of CSR `m` as index/value lists. */
function csrRows(m: HostCsr): { index: number[]; value: number[] }[] {
  const out = [];
  for (let r = 0; r < m.shape[0]; r++) {
    const [s, e] = [Number(m.indptr[r]), Number(m.indptr[r + 1])];
    out.push({
      index: Array.from(m.indices.subarray(s, e), Number),
      value: Array.from(m.data.subarray(s, e)),
    });
  }
  return out;
}

const cases = (golden as { cases: Case[] }).cases;

describe('dmlc-core LibSVM parser rows (MXNet pinned dmlc-core)', () => {
  expect((golden as { dmlc_core_commit: string }).dmlc_core_commit).toMatch(/^[0-9a-f]{40}$/);
  for (const c of cases.filter((x) => !x.uri.includes('?'))) {
    it(`${c.uri}, ${c.num_parts} part(s): the line parser reads dmlc's rows`, () => {
      const { paths } = split(c.uri);
      for (let part = 0; part < c.num_parts; part++) {
        const want = goldenRows(c.parts[part] as Block[]);
        for (const buf of [16, 64, 1 << 20]) expect(ourRows(paths, part, c.num_parts, buf)).toEqual(want);
      }
    });
  }

  it('covers weights, qids, label-only rows, float32 overflow and clamping, parts with no rows', () => {
    const all = cases.flatMap((c) => c.parts.flatMap(goldenRows));
    expect(all.some((r) => r.weight !== null && r.qid !== null)).toBe(true);
    expect(all.some((r) => r.index.length === 0)).toBe(true);
    expect(all.some((r) => r.value.includes(Number.POSITIVE_INFINITY))).toBe(true);
    expect(cases.some((c) => c.parts.some((p) => p.length === 0))).toBe(true);
    // dmlc's own atof, not the C library's: 1e-50 reads as FLT_MIN, not 0.
    expect(all.some((r) => r.value.includes(Math.fround(1.17549421e-38)))).toBe(true);
  });
});

describe('LibSVMReader against dmlc-core rows', () => {
  for (const c of cases) {
    const blockPerPart = c.parts.every((p) => p.length <= 1);
    const auto = c.uri.includes('indexing_mode=-1');
    // dmlc detects 1-based indices per parsed chunk, this reader per part: compare where they agree.
    if (auto && !blockPerPart) continue;
    it(`${c.uri}, ${c.num_parts} part(s): batches hold dmlc's rows`, () => {
      const { paths, mode } = split(c.uri);
      const asBytes = !paths.includes(';');
      for (let part = 0; part < c.num_parts; part++) {
        const want = goldenRows(c.parts[part] as Block[]);
        for (const source of asBytes ? [paths, new Uint8Array(readFileSync(paths))] : [paths]) {
          const reader = new LibSVMReader({
            data_libsvm: typeof source === 'string' ? `${source}?indexing_mode=${mode}` : source,
            indexing_mode: mode,
            data_shape: [64],
            batch_size: 1,
            num_parts: c.num_parts,
            part_index: part,
            buffer_bytes: 32,
          });
          const got: Row[] = [];
          for (let b = reader.next(); b !== undefined; b = reader.next()) {
            expect(b.pad).toBe(0);
            expect(b.shape).toEqual([1, 64]);
            const [row] = csrRows(b);
            got.push({
              label: (b.label as Float32Array)[0] as number,
              weight: null,
              qid: null,
              ...row,
            } as Row);
          }
          reader.close();
          expect(got).toEqual(want.map((r) => ({ ...r, weight: null, qid: null })));
        }
      }
    });
  }

  it('the dmlc chunk quirk: the last line without a line break is its own chunk, indexed on its own', () => {
    const c = cases.find(
      (x) => x.uri === 'comments-empty.libsvm?indexing_mode=-1' && x.num_parts === 1,
    ) as Case;
    const blocks = c.parts[0] as Block[];
    expect(blocks.length).toBe(2);
    // dmlc shifted the lone last row (index 4 → 3) but not the rest, which has index 0.
    expect(blocks[1]?.index).toEqual([3]);
    const reader = new LibSVMReader({
      data_libsvm: `${FIXTURES}comments-empty.libsvm`,
      indexing_mode: -1,
      data_shape: [8],
      batch_size: 9,
    });
    const batch = reader.next();
    expect(batch?.indices.at(-1)).toBe(4n);
  });
});
