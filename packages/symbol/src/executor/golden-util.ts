/**
 * Test helpers for the PyTorch references in src/__golden__/executor.json (written by
 * tools/golden/graph/executor.py): the generator's input values, decoding, and the error measure.
 * Shared by the executor's and the CachedOp's golden tests, so both check against one reading of
 * the file.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';

export interface Arr {
  readonly shape: number[];
  readonly data: string;
}
export interface InputSpec {
  readonly name: string;
  readonly shape: number[];
  readonly seed: number;
  readonly center: number;
  readonly scale: number;
  readonly sum: number;
}
export type Grad = Arr | { readonly factors: { readonly u: Arr; readonly v: Arr } };
export interface Case {
  readonly output: Arr;
  readonly grads: Record<string, Grad>;
}
export interface Golden {
  readonly lenet: Case & { inputs: InputSpec[]; label: number[] };
  readonly mlp: { inputs: InputSpec[]; label: number[]; ones: Case; given: Case & { headGrad: number[] } };
  readonly fashion: { data: Arr; logits: Arr };
}

export function loadGolden(): Golden {
  return JSON.parse(readFileSync(new URL('../__golden__/executor.json', import.meta.url), 'utf8')) as Golden;
}

/** The generator's xorshift32 (13, 17, 5) values ((x >>> 8) / 2^24 - center) * scale, exact in float32. */
export function xorshift(seed: number, n: number, center: number, scale: number): Float32Array {
  let x = seed >>> 0;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    x = (x ^ (x << 13)) >>> 0;
    x = (x ^ (x >>> 17)) >>> 0;
    x = (x ^ (x << 5)) >>> 0;
    out[i] = ((x >>> 8) / 16777216 - center) * scale;
  }
  return out;
}

export function decode(a: Arr): Float64Array {
  const bytes = Buffer.from(a.data, 'base64');
  const f = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  return Float64Array.from(f);
}

/** The reference gradient: stored, or expanded from its factors (sum over n of outer(u[n], v[n])). */
export function expand(g: Grad): Float64Array {
  if (!('factors' in g)) return decode(g);
  const { u, v } = g.factors;
  const [n, r] = u.shape as [number, number];
  const c = v.shape[1] as number;
  const U = decode(u);
  const V = decode(v);
  const out = new Float64Array(r * c);
  for (let k = 0; k < n; k++)
    for (let i = 0; i < r; i++) {
      const ui = U[k * r + i] as number;
      for (let j = 0; j < c; j++) out[i * c + j] = (out[i * c + j] as number) + ui * (V[k * c + j] as number);
    }
  return out;
}

/** Largest |got - want| / (|want| + max|want|). */
export function worst(got: ArrayLike<number>, want: ArrayLike<number>): number {
  expect(got.length).toBe(want.length);
  let scale = 0;
  for (let i = 0; i < want.length; i++) scale = Math.max(scale, Math.abs(want[i] as number));
  let w = 0;
  for (let i = 0; i < want.length; i++) {
    const err = Math.abs((got[i] as number) - (want[i] as number)) / (Math.abs(want[i] as number) + scale);
    w = Math.max(w, Number.isNaN(err) ? Number.POSITIVE_INFINITY : err);
  }
  return w;
}

/** The generator's inputs, checked against the sums it recorded. */
export function inputsOf(specs: readonly InputSpec[]): Record<string, Float32Array> {
  const out: Record<string, Float32Array> = {};
  for (const s of specs) {
    const v = xorshift(
      s.seed,
      s.shape.reduce((a, d) => a * d, 1),
      s.center,
      s.scale,
    );
    let sum = 0;
    for (const x of v) sum += x;
    expect(sum).toBeCloseTo(s.sum, 6); // regenerated exactly as the generator made them
    out[s.name] = v;
  }
  return out;
}
