/**
 * Test support shared by products.test.ts and linalg.test.ts (not exported by the package): the
 * golden files' call encoding (arrays as `{ $a: encoded }`, non-finite numbers as `{ $n }`),
 * comparing an np array with an encoded one, and a numeric gradient check — central differences in
 * float64 of `sum(w * f(x))` against `rt.autograd`'s gradient — for functions of arrays.
 */
import { type DTypeName, MXNetError } from '@mx/base';
import { NDArray } from '../../ndarray.js';
import type { Runtime } from '../../runtime.js';
import { ndarray } from '../array.js';
import { NpContext } from '../context.js';
import { NpFlags } from '../flags.js';
import { linalgFunctions } from './linalg.js';
import { productFunctions } from './products.js';

/**
 * The products and np.linalg functions over `rt`, built directly from their area files (so these
 * tests do not depend on the other areas the namespace spreads).
 */
export function productsAndLinalg(rt: Runtime) {
  // createNp's registration of the array class, which asNpArray needs (the namespace itself is not
  // made: the other areas' files are not needed here).
  if (!rt.extensions.has('np.ndarray')) rt.extensions.set('np.ndarray', ndarray);
  const c = new NpContext(rt, new NpFlags());
  return { ...productFunctions(c), linalg: linalgFunctions(c), context: c };
}

/** An array as the golden generators write it. */
export interface Enc {
  readonly shape: number[];
  readonly dtype: string;
  readonly data: (number | boolean)[];
}

/** A new np array holding an encoded array. */
export function makeArray(rt: Runtime, e: Enc): ndarray {
  const vals = e.data.map((v) => (typeof v === 'boolean' ? (v ? 1 : 0) : v));
  const a = rt.nd.array(vals, { dtype: e.dtype as DTypeName, shape: e.shape });
  const b = a.asNpArray();
  a.dispose();
  return b as ndarray;
}

/** Decode a call's args: arrays become new np arrays (pushed to `made`), `{ $n: 'inf' }` numbers. */
export function decodeArgs(rt: Runtime, args: readonly unknown[], made: NDArray[]): unknown[] {
  const dec = (v: unknown): unknown => {
    if (v === null || typeof v !== 'object') return v;
    if (Array.isArray(v)) return v.map(dec);
    const o = v as Record<string, unknown>;
    if ('$a' in o) {
      const x = makeArray(rt, o.$a as Enc);
      made.push(x);
      return x;
    }
    if ('$n' in o) return o.$n === 'inf' ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY;
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, dec(x)]));
  };
  return args.map(dec);
}

/** Values of an array as numbers (bigint and bool converted). */
export async function values(x: NDArray): Promise<number[]> {
  return Array.from((await x.data()) as ArrayLike<number | bigint>, (v) => Number(v));
}

/** Relative-and-absolute tolerance of a dtype for results summing `k` products. */
export function tolerance(dtype: string, k = 1): { rtol: number; atol: number } {
  if (dtype === 'float64') return { rtol: 1e-9, atol: 1e-11 * Math.sqrt(k) };
  if (dtype === 'float32') return { rtol: 2e-5, atol: 2e-5 * Math.sqrt(k) };
  return { rtol: 0, atol: 0 };
}

/** Check `got` against `want` (shape, dtype, values within the dtype's tolerance). */
export async function expectArray(got: NDArray, want: Enc, k = 1, what = ''): Promise<void> {
  const fail = (m: string) => {
    throw new Error(`${what}: ${m}`);
  };
  if (!(got instanceof ndarray)) fail('not an np array');
  if (JSON.stringify([...got.shape]) !== JSON.stringify(want.shape))
    fail(`shape ${JSON.stringify(got.shape)} != ${JSON.stringify(want.shape)}`);
  if (got.dtype !== want.dtype) fail(`dtype ${got.dtype} != ${want.dtype}`);
  const g = await values(got);
  const { rtol, atol } = tolerance(want.dtype, k);
  want.data.forEach((w, i) => {
    const wv = typeof w === 'boolean' ? (w ? 1 : 0) : w;
    const gv = g[i] as number;
    if (!(Math.abs(gv - wv) <= atol + rtol * Math.abs(wv))) fail(`element ${i}: ${gv} != ${wv}`);
  });
}

/** Deterministic pseudo-random weights in [-1, 1) (a small LCG; no shared state). */
function weights(n: number, seed: number): number[] {
  let s = seed >>> 0;
  return Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return (s / 2 ** 32) * 2 - 1;
  });
}

/**
 * Compare `rt.autograd`'s gradient of `sum(w * f(...inputs))` with central differences, for every
 * float64 input (up to `maxPerInput` elements each). Returns the worst relative error.
 */
export async function gradCheck(
  rt: Runtime,
  f: (...xs: NDArray[]) => NDArray,
  inputs: readonly NDArray[],
  options: { readonly eps?: number; readonly maxPerInput?: number } = {},
): Promise<number> {
  const eps = options.eps ?? 1e-6;
  const ins = inputs.map((x) => {
    const c = x.copy();
    c.attachGrad();
    return c;
  });
  const made: NDArray[] = [...ins];
  try {
    const y0 = f(...ins);
    made.push(y0);
    const w = rt.nd.array(weights(y0.size, 7), { dtype: y0.dtype, shape: [...y0.shape] }).asNpArray();
    made.push(w);
    const loss = (ys: NDArray): number => {
      const yv = ys.dataSync() as ArrayLike<number>;
      const wv = w.dataSync() as ArrayLike<number>;
      let s = 0;
      for (let i = 0; i < ys.size; i++) s += (yv[i] as number) * (wv[i] as number);
      return s;
    };
    const l = rt.autograd.record(() => {
      const y = f(...ins);
      const p = rt.invoke('broadcast_mul', [y, w])[0] as NDArray;
      const s = rt.invoke('sum', [p])[0] as NDArray;
      made.push(y, p);
      return s;
    });
    made.push(l);
    l.backward();
    let worst = 0;
    for (let k = 0; k < ins.length; k++) {
      const x = ins[k] as NDArray;
      if (x.dtype !== 'float64') continue;
      const base = Array.from(x.dataSync() as Float64Array);
      const grad = await values(x.grad as NDArray);
      const n = Math.min(base.length, options.maxPerInput ?? 24);
      for (let i = 0; i < n; i++) {
        const at = (d: number): number => {
          const v = [...base];
          v[i] = (v[i] as number) + d;
          const xs = ins.map((z, j) =>
            j === k ? rt.nd.array(v, { dtype: 'float64', shape: [...x.shape] }) : z,
          );
          const fresh = xs[k] as NDArray;
          const npx = fresh.asNpArray();
          const args = xs.map((z, j) => (j === k ? npx : z));
          try {
            const y = f(...args);
            try {
              return loss(y);
            } finally {
              y.dispose();
            }
          } finally {
            npx.dispose();
            fresh.dispose();
          }
        };
        const num = (at(eps) - at(-eps)) / (2 * eps);
        const ana = grad[i] as number;
        const err = Math.abs(num - ana) / Math.max(1, Math.abs(num));
        worst = Math.max(worst, err);
      }
    }
    return worst;
  } finally {
    for (const x of made) x.dispose();
  }
}

/**
 * The message of what `body` throws (an MXNetError), reading its results so that errors a kernel
 * raises when it runs (after the call returned) count; '(did not throw)' when nothing failed.
 */
export function thrown(body: () => unknown): string {
  let outs: NDArray[] = [];
  try {
    const r = body();
    outs = (Array.isArray(r) ? r : [r]).filter((x): x is NDArray => x instanceof NDArray);
    for (const x of outs) x.dataSync();
  } catch (e) {
    if (!(e instanceof MXNetError)) return `not an MXNetError: ${(e as Error).message}`;
    return e.message;
  } finally {
    for (const x of outs) x.dispose();
  }
  return '(did not throw)';
}
