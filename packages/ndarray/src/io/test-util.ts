/**
 * Helpers shared by the io tests: sample arrays of every dtype, hex conversion and a matcher that
 * asserts a call throws an MXNetError (and not some other error) whose message contains text.
 */
import { ALL_DTYPES, DType, type DTypeName, isMXNetError } from '@mx/base';
import { expect } from 'vitest';
import type { HostArray } from './types.js';
import { crc32, writeZip } from './zip.js';

export function hex(s: string): Uint8Array {
  const clean = s.replace(/\s+/g, '');
  const out = new Uint8Array(clean.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(clean.slice(2 * i, 2 * i + 2), 16);
  return out;
}

export function toHex(b: Uint8Array): string {
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}

export const DTYPE_NAMES: readonly DTypeName[] = ALL_DTYPES.map((d) => d.name);

/** Deterministic sample values for `dtype` (distinct, sign-mixed where the dtype allows). */
export function sample(dtype: DTypeName, shape: readonly number[], seed = 1): HostArray {
  const info = DType[dtype];
  const n = shape.reduce((a, b) => a * b, 1);
  const data = new info.storage(n);
  for (let i = 0; i < n; i++) {
    const v = ((i * 7 + seed * 13) % 23) - (info.kind === 'u' || info.kind === 'b' ? 0 : 11);
    if (info.bigint) {
      (data as BigInt64Array)[i] = BigInt(v) * (dtype === 'int64' ? -1234567890123n : 1234567890123n);
      if (dtype === 'uint64') (data as BigUint64Array)[i] = BigInt(Math.abs(v)) * 1234567890123n;
    } else if (dtype === 'bool') data[i] = v % 2;
    else if (dtype === 'float16')
      data[i] = 0x3c00 + v; // bit patterns near 1.0
    else if (dtype === 'bfloat16') data[i] = 0x3f80 + v;
    else if (info.kind === 'f') (data as Float32Array)[i] = v / 4;
    else (data as Int32Array)[i] = v;
  }
  return { shape, dtype, data };
}

/** Asserts `fn` throws an MXNetError whose message contains every `parts` string. */
export function expectMXNetError(fn: () => unknown, ...parts: string[]): void {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  expect(caught, 'expected an MXNetError').toBeDefined();
  if (!isMXNetError(caught)) throw caught;
  for (const p of parts) expect((caught as Error).message).toContain(p);
}

/** Plain values of a host array for deep equality. */
export function plain(a: HostArray): {
  shape: number[];
  dtype: string;
  data: (number | bigint)[];
  none: boolean;
} {
  return {
    shape: [...a.shape],
    dtype: a.dtype,
    data: Array.from(a.data as ArrayLike<number | bigint>),
    none: a.none === true,
  };
}

/** A one-entry zip whose entry is deflated (method 8). */
export function deflatedZip(name: string, raw: Uint8Array, deflated: Uint8Array): Uint8Array {
  const stored = writeZip([{ name, data: deflated }], 't');
  const v = new DataView(stored.buffer);
  const cd = v.getUint32(stored.length - 6, true);
  for (const at of [0, cd]) {
    const method = at === 0 ? 8 : 10;
    const crcAt = at === 0 ? 14 : 16;
    v.setUint16(at + method, 8, true);
    v.setUint32(at + crcAt, crc32(raw), true);
    v.setUint32(at + crcAt + 8, raw.length, true); // uncompressed size
  }
  return stored;
}
