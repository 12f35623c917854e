/**
 * What the linalg and conv unit tests share: seeded data, and running one op on cpu(0) and gpu(0)
 * from the same values (optionally into pre-filled `out=` arrays with req add, or skipping
 * outputs) and comparing every output. cpu-wasm is the reference, as in the golden suite.
 */
import type { Runtime } from '@mx/ndarray';
import { expect } from 'vitest';
import { CPU, GPU } from '../../test-util/gpu.js';

/** n values in [-1, 1) from a small LCG (deterministic per seed). */
export function seeded(n: number, seed: number, ints = false): Float32Array {
  const out = new Float32Array(n);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const u = s / 2 ** 32;
    out[i] = ints ? Math.floor(u * 4) : u * 2 - 1;
  }
  return out;
}

export interface RunBoth {
  readonly op: string;
  readonly shapes: readonly (readonly number[])[];
  readonly params?: Readonly<Record<string, unknown>>;
  /** Accumulate into outputs pre-filled with seeded values (req add). */
  readonly add?: boolean;
  /** Outputs nobody reads (req null). */
  readonly skip?: readonly boolean[];
  /** Small integer data (exact ties for max pooling). */
  readonly ints?: boolean;
  readonly rtol?: number;
  readonly atol?: number;
}

/** Run `op` on both devices and compare outputs (skipped ones must stay untouched on gpu). */
export async function compareWithCpu(rt: Runtime, c: RunBoth): Promise<void> {
  const { nd } = rt;
  const make = (ctx: typeof CPU) =>
    c.shapes.map((s, i) => {
      const n = s.reduce((a, b) => a * b, 1);
      return nd.array(seeded(n, 17 + i * 101, c.ints), { ctx, shape: s });
    });
  const outShapes = rt.invoke(c.op, make(CPU), c.params ?? {}).map((o) => o.shape);
  const outs = (ctx: typeof CPU) =>
    outShapes.map((s, i) =>
      nd
        .array(
          seeded(
            Math.max(
              1,
              s.reduce((a, b) => a * b, 1),
            ),
            999 + i,
          ),
          { ctx },
        )
        .reshape(s),
    );
  const opts = (out: ReturnType<typeof outs>) => ({
    out,
    req: c.add ? ('add' as const) : ('write' as const),
    ...(c.skip ? { skip: c.skip } : {}),
  });
  const oc = outs(CPU);
  const og = outs(GPU);
  rt.invoke(c.op, make(CPU), c.params ?? {}, opts(oc));
  rt.invoke(c.op, make(GPU), c.params ?? {}, opts(og));
  const rtol = c.rtol ?? 1e-4;
  const atol = c.atol ?? 1e-4;
  for (let i = 0; i < oc.length; i++) {
    const want = Array.from((await (oc[i] as (typeof oc)[0]).data()) as Float32Array);
    const got = Array.from((await (og[i] as (typeof og)[0]).data()) as Float32Array);
    expect(got.length).toBe(want.length);
    let bad = -1;
    for (let j = 0; j < want.length; j++) {
      const w = want[j] as number;
      const g = got[j] as number;
      if (!(Math.abs(g - w) <= atol + rtol * Math.abs(w))) {
        bad = j;
        break;
      }
    }
    if (bad >= 0)
      expect.fail(
        `${c.op} output ${i} [${outShapes[i]}] differs at ${bad}: gpu ${got[bad]} vs cpu ${want[bad]}`,
      );
  }
  for (const a of [...oc, ...og]) a.dispose();
}

export { CPU, GPU };
