/**
 * Shared by the SciPy .npz tests (host level, fuzzing, SciPy interop, NDArray level): the golden
 * cases of tools/golden/sparse/scipy_npz.py, its fixture files, and builders of damaged files.
 */
import { readFileSync } from 'node:fs';
import { saveNpy } from './npy.js';
import type { HostArray, HostSparseArray } from './types.js';
import { readZip, writeZip } from './zip.js';

export interface ScipyCase {
  file: string;
  how: string;
  format: string;
  dtype: string;
  shape: [number, number];
  dense?: number[];
  data?: number[];
  indices?: number[];
  indptr?: number[];
  stored?: Record<string, string>;
  refused?: string;
}

export const golden = JSON.parse(
  readFileSync(new URL('../__golden__/sparse-scipy-npz.json', import.meta.url), 'utf8'),
) as { cases: ScipyCase[] };

export const fixture = (file: string): Uint8Array =>
  new Uint8Array(readFileSync(new URL(`./__fixtures__/scipy/${file}`, import.meta.url)));

export const nums = (a: ArrayLike<number | bigint> | undefined) => Array.from(a ?? [], Number);

/** Dense values of CSR parts (row-major). */
export function denseOf(a: HostSparseArray): number[] {
  const [rows, cols] = a.shape as [number, number];
  const out = new Array<number>(rows * cols).fill(0);
  const ptr = nums(a.indptr);
  const ix = nums(a.indices);
  const v = nums(a.data as ArrayLike<number | bigint>);
  for (let r = 0; r < rows; r++)
    for (let j = ptr[r] as number; j < (ptr[r + 1] as number); j++)
      out[r * cols + (ix[j] as number)] = v[j] as number;
  return out;
}

// A zip member of a real SciPy file, to build damaged files from.
export const member = (file: string, name: string) =>
  readZip(fixture(file), 't', file).find((e) => e.name === name)?.data as Uint8Array;
export const FORMAT_CSR = member('csr_float64_stored.npz', 'format.npy');
export const FORMAT_COO = member('coo_duplicates.npz', 'format.npy');

export const i64 = (...v: number[]): HostArray => ({
  shape: [v.length],
  dtype: 'int64',
  data: BigInt64Array.from(v, BigInt),
});
export const i32 = (...v: number[]): HostArray => ({
  shape: [v.length],
  dtype: 'int32',
  data: Int32Array.from(v),
});
export const f32 = (...v: number[]): HostArray => ({
  shape: [v.length],
  dtype: 'float32',
  data: Float32Array.from(v),
});

/** A zip of `.npy` members (raw bytes for members given as bytes). */
export function npz(members: Record<string, HostArray | Uint8Array>): Uint8Array {
  return writeZip(
    Object.entries(members).map(([name, a]) => ({
      name: `${name}.npy`,
      data: a instanceof Uint8Array ? a : saveNpy(a),
    })),
    't',
  );
}

/** A valid 3x4 CSR file's members, to break one at a time. */
export const CSR = {
  indices: i32(1, 3, 0),
  indptr: i32(0, 2, 2, 3),
  format: FORMAT_CSR,
  shape: i64(3, 4),
  data: f32(1, 2, 3),
};
