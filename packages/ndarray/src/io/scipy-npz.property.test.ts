/**
 * Fuzzing the SciPy .npz reader (fast-check, fixed seeds, bounded runs): damaged real files and
 * random member contents either load a well-formed canonical CSR array with the right values or
 * fail with an MXNetError — never a RangeError, a TypeError or a hang.
 */
import { isMXNetError } from '@mx/base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sparseFormatError } from '../sparse/format-check.js';
import { loadScipyNpz, type ScipyCsr } from './scipy-npz.js';
import { denseOf, FORMAT_COO, FORMAT_CSR, f32, fixture, i32, i64, member, npz } from './scipy-test-util.js';
import type { HostArray } from './types.js';

/** Loads `bytes`; 'mxnet' for an MXNetError (anything else is rethrown), else the array, checked. */
function outcome(bytes: Uint8Array): ScipyCsr | 'mxnet' {
  let a: ScipyCsr;
  try {
    a = loadScipyNpz(bytes, 'fuzz.npz', { maxBytes: 2 ** 24 }).array;
  } catch (e) {
    if (isMXNetError(e)) return 'mxnet';
    throw e;
  }
  // Whatever loads is a valid canonical CSR array (MXNet's check_format, full).
  expect(sparseFormatError({ ...a, dataLength: a.data.length }, true)).toBeUndefined();
  return a;
}

const FILES = [
  'csr_float32.npz',
  'csr_float64_stored.npz',
  'coo_duplicates.npz',
  'csc_unsorted_duplicates.npz',
];

describe('damaged real files', () => {
  it('every truncation of a stored file is an MXNetError', () => {
    const b = fixture('csr_float64_stored.npz');
    for (let n = 0; n < b.length; n++) expect(outcome(b.subarray(0, n))).toBe('mxnet');
  });

  it('random truncations and byte damage load correctly or fail with an MXNetError', () => {
    const files = FILES.map(fixture);
    fc.assert(
      fc.property(
        fc.nat(FILES.length - 1),
        fc.array(fc.tuple(fc.nat(4000), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }),
        fc.option(fc.nat(4000)),
        (f, flips, cut) => {
          const b = (files[f] as Uint8Array).slice();
          for (const [at, v] of flips) b[at % b.length] = v;
          outcome(cut === null ? b : b.subarray(0, cut % b.length));
        },
      ),
      { seed: 15, numRuns: 400 },
    );
  });
});

type IndexDType = 'int32' | 'int64' | 'uint8';

function indexArray(values: number[], dtype: IndexDType | 'float32'): HostArray {
  if (dtype === 'int32') return i32(...values);
  if (dtype === 'int64') return i64(...values);
  if (dtype === 'float32') return f32(...values);
  return { shape: [values.length], dtype: 'uint8', data: Uint8Array.from(values) };
}

/** A valid matrix as (row, col, value) triples — duplicates and any order allowed — and how to store it. */
const arbMatrix = fc.record({
  format: fc.constantFrom('csr', 'csc', 'coo'),
  rows: fc.integer({ min: 0, max: 4 }),
  cols: fc.integer({ min: 0, max: 4 }),
  entries: fc.array(fc.tuple(fc.nat(), fc.nat(), fc.integer({ min: -8, max: 8 })), { maxLength: 10 }),
  dtype: fc.constantFrom<IndexDType>('int32', 'int64', 'uint8'),
});

/** One way to break a file (or null: leave it valid). */
const arbDamage = fc.option(
  fc.record({
    what: fc.constantFrom(
      'a',
      'b',
      'shortData',
      'shape3d',
      'shape1d',
      'dia',
      'dropA',
      'dropData',
      'floatIndex',
    ),
    at: fc.nat(),
    value: fc.integer({ min: -2, max: 6 }),
  }),
  { freq: 2 },
);

const FORMAT_CSC = member('csc_unsorted_duplicates.npz', 'format.npy');
const FORMAT_DIA = member('dia.npz', 'format.npy');

type Matrix = {
  format: string;
  rows: number;
  cols: number;
  entries: [number, number, number][];
  dtype: IndexDType;
};
type Damage = { what: string; at: number; value: number } | null;

/** The file's members, and the dense matrix the triples describe. */
function build(m: Matrix, damage: Damage): { bytes: Uint8Array; dense: number[] } {
  const { rows, cols } = m;
  const t = rows === 0 || cols === 0 ? [] : m.entries.map(([r, c, v]) => [r % rows, c % cols, v] as const);
  const dense = new Array<number>(rows * cols).fill(0);
  for (const [r, c, v] of t) dense[r * cols + c] = (dense[r * cols + c] as number) + v;
  let a: number[];
  let b: number[];
  let order = t;
  if (m.format === 'coo') {
    a = t.map((x) => x[0]);
    b = t.map((x) => x[1]);
  } else {
    // Compressed: group by the major axis (stable), keep the minor order as given.
    const major = m.format === 'csr' ? 0 : 1;
    order = [...t].sort((x, y) => x[major] - y[major]);
    const n = m.format === 'csr' ? rows : cols;
    a = Array.from({ length: n + 1 }, (_, i) => order.filter((x) => x[major] < i).length);
    b = order.map((x) => x[1 - major] as number);
  }
  let data = order.map((x) => x[2]);
  let shape = [rows, cols];
  let format = { csr: FORMAT_CSR, csc: FORMAT_CSC, coo: FORMAT_COO }[m.format] as Uint8Array;
  let aType: IndexDType | 'float32' = m.dtype;
  const set = (xs: number[], d: NonNullable<Damage>) => {
    if (xs.length > 0) xs[d.at % xs.length] = d.value;
  };
  if (damage?.what === 'a') set(a, damage);
  if (damage?.what === 'b') set(b, damage);
  if (damage?.what === 'shortData') data = data.slice(0, -1);
  if (damage?.what === 'shape3d') shape = [rows, cols, 1];
  if (damage?.what === 'shape1d') shape = [rows * cols];
  if (damage?.what === 'dia') format = FORMAT_DIA;
  if (damage?.what === 'floatIndex') aType = 'float32';
  const [aName, bName] = m.format === 'coo' ? ['row', 'col'] : ['indptr', 'indices'];
  const members: Record<string, HostArray | Uint8Array> = {
    format,
    shape: i64(...shape),
    [aName]: indexArray(a, aType),
    [bName]: indexArray(b, m.dtype),
    data: i32(...data),
  };
  if (damage?.what === 'dropA') delete members[aName];
  if (damage?.what === 'dropData') delete members.data;
  return { bytes: npz(members), dense };
}

describe('random files', () => {
  it('a valid file loads the matrix its triples describe; a damaged one loads well formed or fails with an MXNetError', () => {
    const seen = { valid: 0, refused: 0 };
    fc.assert(
      fc.property(arbMatrix, arbDamage, (m, damage) => {
        const { bytes, dense } = build(m as Matrix, damage);
        const got = outcome(bytes);
        if (damage === null) {
          seen.valid++;
          expect(got).not.toBe('mxnet');
          expect(denseOf(got as ScipyCsr)).toEqual(dense);
          expect((got as ScipyCsr).shape).toEqual([m.rows, m.cols]);
        } else if (got === 'mxnet') seen.refused++;
      }),
      { seed: 1515, numRuns: 1500 },
    );
    // Both sides of the property were exercised.
    expect(seen.valid).toBeGreaterThan(300);
    expect(seen.refused).toBeGreaterThan(300);
  });
});
