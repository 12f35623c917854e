/**
 * Helpers for the image tests: golden images are stored as base64 of their raw bytes (uint8 or
 * little-endian float32), and errors are checked as MXNetErrors naming the op.
 */
import { isMXNetError } from '@mx/base';
import { expect } from 'vitest';
import type { HostImage, ImageDType } from './host-image.js';

export function fromBase64(b64: string): Uint8Array {
  return new Uint8Array(Buffer.from(b64, 'base64'));
}

export function goldenImage(b64: string, shape: readonly number[], dtype: ImageDType | string): HostImage {
  const bytes = fromBase64(b64);
  const data =
    dtype === 'uint8' ? bytes : new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  return {
    data: dtype === 'uint8' ? data : (data as Float32Array).slice(),
    shape: [shape[0] ?? 0, shape[1] ?? 0, shape[2] ?? 0],
  };
}

/** Largest |a - b| over two equally long arrays (Infinity when the lengths differ). */
export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Number.POSITIVE_INFINITY;
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs((a[i] as number) - (b[i] as number)));
  return m;
}

/** Runs `f` (sync or async) and checks it throws an MXNetError whose message contains each part. */
export async function expectMXNetError(f: () => unknown, ...parts: (string | RegExp)[]): Promise<void> {
  let err: unknown;
  try {
    await f();
  } catch (e) {
    err = e;
  }
  expect(isMXNetError(err), `expected an MXNetError, got ${String(err)}`).toBe(true);
  const message = (err as Error).message;
  for (const p of parts) {
    if (typeof p === 'string') expect(message).toContain(p);
    else expect(message).toMatch(p);
  }
}
