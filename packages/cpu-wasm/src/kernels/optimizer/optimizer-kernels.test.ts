/**
 * What the golden cases cannot show: every element body's wasm loops (SIMD and scalar tail) agree
 * bit for bit with its JavaScript evaluation, for every variant and req; `out=weight` (the output
 * blob is the weight's memory) gives the same values as a separate output; large updates split
 * across the worker pool give the same bits as one thread; req=add/null; and a two-step momentum
 * sequence reproducing the trainer test's arithmetic (catalog §12 item 29) in place.
 */
import { cpu, type DTypeName, type Shape, shapeSize } from '@mx/base';
import { OpReq, type OpReqType, type TBlob } from '@mx/ops';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHUNK_ELEMS, PARALLEL_MIN } from '../../codegen/compile.js';
import { toHalfBits } from '../../codegen/half.js';
import { type BlobBench, blobBench, onlinePool } from '../../test-util/blob-bench.js';
import type { WorkerPool } from '../../threads/index.js';
import type { Kind } from './arith.js';
import { FusedUpdate, Req, type UpdateSpec } from './fused.js';
import {
  ADAM,
  adamWSpec,
  BIAS,
  CLIP,
  CLIP_WEIGHTS,
  FTRL,
  LAMB1,
  LAMB2,
  momSpec,
  NAG,
  RMSPROP,
  RMSPROP_ALEX,
  SIGNSGD,
  SIGNUM,
  sgdSpec,
} from './specs.js';

const ctx = { isTrain: false, needGrad: false, ctx: cpu(), requested: [] };

/** Deterministic values in [lo, hi). */
function data(n: number, seed: number, lo = -2, hi = 2): Float64Array {
  const a = new Float64Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    a[i] = lo + (s / 2 ** 32) * (hi - lo);
  }
  return a;
}

function read(b: BlobBench, blob: TBlob<number>): number[] {
  return Array.from(b.rt.view(blob) as Float64Array, Number);
}

/** Equal bit for bit (NaN equals NaN). */
function sameBits(a: readonly number[], b: readonly number[]): boolean {
  return (
    a.length === b.length && a.every((x, i) => Object.is(x, b[i]) || (Number.isNaN(x) && Number.isNaN(b[i])))
  );
}

const SPECS: [UpdateSpec, number][] = [
  [sgdSpec(false), CLIP],
  [sgdSpec(true), CLIP],
  [momSpec(true, false), CLIP],
  [momSpec(false, false), CLIP],
  [momSpec(true, true), CLIP],
  [momSpec(false, true), CLIP],
  [NAG, CLIP],
  [ADAM, CLIP],
  [adamWSpec(false), CLIP],
  [adamWSpec(true), CLIP],
  [RMSPROP, CLIP | CLIP_WEIGHTS],
  [RMSPROP_ALEX, CLIP | CLIP_WEIGHTS],
  [FTRL, CLIP],
  [SIGNSGD, 0],
  [SIGNUM, CLIP],
  [LAMB1, CLIP | BIAS],
  [LAMB2, 0],
];

describe('optimizer element bodies: wasm loops vs JavaScript', () => {
  const b = blobBench(0);
  afterAll(() => b.freeAll());

  for (const [spec, allFlags] of SPECS) {
    it(`${spec.key}: every variant, req and precision agree bit for bit`, () => {
      const fused = new FusedUpdate(b.rt, spec);
      // Positive uniforms in (0, 1); states positive (n, var) so square roots stay real mostly.
      const uniforms = spec.uniforms.map((u, i) => {
        const v = 0.05 + 0.9 * (((i * 7919) % 97) / 97);
        return u.startsWith('-') ? -0.6 : u === 'clip' || u === 'cw' ? 0.6 : v;
      });
      const n = 37; // 2-vector turns, one-vector turns and a scalar tail
      for (const kind of ['f32', 'f64'] as Kind[]) {
        const dtype: DTypeName = kind === 'f32' ? 'float32' : 'float64';
        const r = kind === 'f32' ? Math.fround : (x: number) => x;
        const u = uniforms.map(r);
        for (let flags = 0; flags <= allFlags; flags++) {
          if ((flags & allFlags) !== flags) continue;
          for (const req of [Req.write, Req.add, Req.none]) {
            const init = Array.from({ length: spec.slots }, (_, k) => data(n, 100 * k + flags, 0.01, 2));
            const run = (js: boolean) => {
              const blobs = init.map((d) => b.blob([n], dtype, d));
              if (js) fused.runJs(kind, flags, req, blobs, u);
              else fused.run(kind, flags, req, blobs, u);
              return blobs.map((x) => read(b, x));
            };
            const wasm = run(false);
            const js = run(true);
            wasm.forEach((w, k) => {
              expect(sameBits(w, js[k] as number[]), `${kind} flags=${flags} req=${req} slot ${k}`).toBe(
                true,
              );
            });
            b.freeAll();
          }
        }
      }
    });
  }
});

describe('optimizer kernels through the registry', () => {
  const b = blobBench(0);
  afterAll(() => b.freeAll());

  /** Run `op` with `ins`; `out` defaults to new output blobs; returns outputs then inputs read back. */
  function call(
    op: string,
    params: Record<string, unknown>,
    ins: TBlob<number>[],
    outs?: TBlob<number>[],
    req: OpReqType = OpReq.write,
  ): number[][] {
    const o = b.registry.get(op);
    const attrs = o.parseParams(params);
    const k = b.registry.kernel(o, 'cpu-wasm')?.compute;
    if (k === undefined) throw new Error(`no kernel for ${op}`);
    const outBlobs =
      outs ??
      Array.from({ length: o.numOutputs(attrs) }, (_, i) => {
        const w = ins[i * (ins.length / o.numOutputs(attrs))] as TBlob<number>;
        return b.blob(w.shape, w.dtype, new Float64Array(w.size));
      });
    k(
      attrs,
      ctx,
      ins,
      outBlobs.map(() => req),
      outBlobs,
    );
    return [...outBlobs, ...ins].map((x) => read(b, x));
  }

  const cases: [string, Record<string, unknown>, number, DTypeName[]][] = [
    ['sgd_update', { lr: 0.1, wd: 0.01, clip_gradient: 0.5 }, 2, ['float32', 'float32']],
    ['sgd_mom_update', { lr: 0.1, momentum: 0.9, wd: 0.01 }, 3, ['float64', 'float64', 'float64']],
    ['nag_mom_update', { lr: 0.1, momentum: 0.9, wd: 0.1 }, 3, ['float32', 'float32', 'float32']],
    ['adam_update', { lr: 0.01, wd: 0.01 }, 4, ['float32', 'float32', 'float32', 'float32']],
    ['rmspropalex_update', { lr: 0.01, wd: 0.01, clip_weights: 1.5 }, 5, Array(5).fill('float32')],
    ['ftrl_update', { lr: 0.1, wd: 0.01 }, 4, Array(4).fill('float64')],
    ['signum_update', { lr: 0.1, momentum: 0.9, wd_lh: 0.01 }, 3, Array(3).fill('float32')],
    ['mp_sgd_mom_update', { lr: 0.1, momentum: 0.9 }, 4, ['float32', 'float32', 'float32', 'float32']],
    ['lamb_update_phase1', { t: 2, wd: 0.01 }, 4, Array(4).fill('float32')],
  ];
  for (const [op, params, nIn, dtypes] of cases) {
    it(`${op}: out=weight gives the same values and states as a separate output`, () => {
      const n = 21;
      const init = Array.from({ length: nIn }, (_, k) => data(n, 7 + k, k >= 2 ? 0.01 : -2, 2));
      const fresh = () => init.map((d, k) => b.blob([n], dtypes[k] as DTypeName, d));
      const separate = call(op, params, fresh());
      const ins = fresh();
      const inPlace = call(op, params, ins, [ins[0] as TBlob<number>]);
      expect(inPlace[0]).toEqual(separate[0]);
      // The weight input now holds the update; every state matches the separate run.
      expect(inPlace[1]).toEqual(separate[0]);
      for (let k = 1; k < nIn; k++) expect(inPlace[1 + k], `input ${k}`).toEqual(separate[1 + k]);
      // The separate run left the weight alone.
      expect(separate[1]).toEqual(Array.from(b.rt.view(fresh()[0] as TBlob<number>) as Float32Array, Number));
      b.freeAll();
    });
  }

  it('multi_sgd_mom_update in place updates every weight and momentum', () => {
    const shapes: Shape[] = [[5], [3, 3], [17]];
    const params = { lrs: [0.1, 0.2, 0.05], wds: [0, 0.01, 0.1], momentum: 0.9, num_weights: 3 };
    const fresh = () =>
      shapes.flatMap((s, i) => [0, 1, 2].map((k) => b.blob(s, 'float32', data(shapeSize(s), 31 * i + k))));
    const separate = call('multi_sgd_mom_update', params, fresh());
    const ins = fresh();
    const weights = [0, 3, 6].map((i) => ins[i] as TBlob<number>);
    const inPlace = call('multi_sgd_mom_update', params, ins, weights);
    for (let i = 0; i < 3; i++) {
      expect(inPlace[i]).toEqual(separate[i]);
      expect(inPlace[3 + 3 * i]).toEqual(separate[i]); // weight i now updated
      expect(inPlace[3 + 3 * i + 2]).toEqual(separate[3 + 3 * i + 2]); // mom i
    }
    b.freeAll();
  });

  it("reproduces the trainer test's momentum arithmetic in place (-2, then -4 with lr .5)", () => {
    const w = b.blob([1], 'float32', [0]);
    const g = b.blob([1], 'float32', [2]);
    const mom = b.blob([1], 'float32', [0]);
    call('sgd_mom_update', { lr: 1, momentum: 0.5 }, [w, g, mom], [w]);
    expect(read(b, w)).toEqual([-2]);
    expect(read(b, mom)).toEqual([-2]);
    call('sgd_mom_update', { lr: 0.5, momentum: 0.5 }, [w, g, mom], [w]);
    expect(read(b, w)).toEqual([-4]);
    b.freeAll();
  });

  it('req=add accumulates into the output; req=null still updates the states', () => {
    const w = b.blob([6], 'float32', [1, 2, 3, 4, 5, 6]);
    const g = b.blob([6], 'float32', [1, 1, 1, 1, 1, 1]);
    const mom = b.blob([6], 'float32', new Float64Array(6));
    const out = b.blob([6], 'float32', [10, 10, 10, 10, 10, 10]);
    call('sgd_mom_update', { lr: 0.5 }, [w, g, mom], [out], OpReq.add);
    expect(read(b, out)).toEqual([10.5, 11.5, 12.5, 13.5, 14.5, 15.5]);
    expect(read(b, mom)).toEqual([-0.5, -0.5, -0.5, -0.5, -0.5, -0.5]);
    call('sgd_mom_update', { lr: 0.5, momentum: 1 }, [w, g, mom], [out], OpReq.null);
    expect(read(b, out)).toEqual([10.5, 11.5, 12.5, 13.5, 14.5, 15.5]);
    expect(read(b, mom)).toEqual([-1, -1, -1, -1, -1, -1]);
    b.freeAll();
  });

  it('mixed precision: a float16 weight gets the float16 rounding of the float32 master copy', () => {
    const n = 9;
    const w32 = data(n, 5);
    const w16 = b.blob([n], 'float16', new Float64Array(n));
    (b.rt.view(w16) as Uint16Array).set(Array.from(w32, toHalfBits));
    const g16 = b.blob([n], 'float16', new Float64Array(n));
    (b.rt.view(g16) as Uint16Array).set(Array.from(data(n, 6), toHalfBits));
    const master = b.blob([n], 'float32', w32);
    const [out] = call('mp_sgd_update', { lr: 0.25 }, [w16, g16, master]);
    const m = read(b, master);
    expect((out as number[]).map((x) => x)).toEqual(m.map(toHalfBits));
    b.freeAll();
  });

  it('a NaN rescale_grad skips _adamw_update and keeps the states', () => {
    const w = b.blob([3], 'float32', [1, 2, 3]);
    const g = b.blob([3], 'float32', [1, 1, 1]);
    const mean = b.blob([3], 'float32', [0.1, 0.1, 0.1]);
    const v = b.blob([3], 'float32', [0.2, 0.2, 0.2]);
    const r = b.blob([1], 'float32', [Number.NaN]);
    const [out, , , m2, v2] = call('_adamw_update', { lr: 0.1, eta: 1 }, [w, g, mean, v, r]);
    expect(out).toEqual([1, 2, 3]);
    expect(m2).toEqual(read(b, mean));
    expect(v2?.map(Math.fround)).toEqual([0.2, 0.2, 0.2].map(Math.fround));
    b.freeAll();
  });
});

describe('optimizer kernels on the worker pool', () => {
  const off = blobBench(0);
  const on = blobBench(1);
  let pool: WorkerPool;
  beforeAll(async () => {
    pool = await onlinePool(on.backend);
    expect(pool.size).toBe(2);
  });
  afterAll(() => {
    off.freeAll();
    on.freeAll();
    pool.dispose();
  });

  const sizes = [PARALLEL_MIN - 3, PARALLEL_MIN + 5, 3 * CHUNK_ELEMS + PARALLEL_MIN + 1];
  const ops: [string, Record<string, unknown>, number][] = [
    ['sgd_update', { lr: 0.1, wd: 0.01 }, 2],
    ['adam_update', { lr: 0.01, clip_gradient: 0.5 }, 4],
    ['rmspropalex_update', { lr: 0.01 }, 5],
  ];
  for (const [op, params, nIn] of ops) {
    it(`${op}: threaded and single-threaded updates are bit-identical`, () => {
      for (const n of sizes) {
        const results = [off, on].map((s) => {
          const ins = Array.from({ length: nIn }, (_, k) =>
            s.blob([n], 'float32', data(n, 3 + k, k >= 2 ? 0.5 : -2, 2)),
          );
          const o = s.registry.get(op);
          const attrs = o.parseParams(params);
          const out = s.blob([n], 'float32', new Float64Array(n));
          s.registry.kernel(o, 'cpu-wasm')?.compute?.(attrs, ctx, ins, [OpReq.write], [out]);
          const r = [out, ...ins.slice(2)].map((x) => Float32Array.from(s.rt.view(x) as Float32Array));
          s.freeAll();
          return r;
        });
        const [a, c] = results as [Float32Array[], Float32Array[]];
        a.forEach((x, k) => {
          const y = c[k] as Float32Array;
          let bad = -1;
          for (let i = 0; i < x.length; i++) {
            if (!Object.is(x[i], y[i])) {
              bad = i;
              break;
            }
          }
          expect(bad, `${op} n=${n} array ${k}`).toBe(-1);
        });
      }
    });
  }

  it('multi_sum_sq of a large array adds chunk sums in order on any thread count', () => {
    const n = 5 * CHUNK_ELEMS + PARALLEL_MIN + 7;
    const d = data(n, 11);
    let want = 0;
    for (const x of d) want += Math.fround(x) * Math.fround(x);
    const sums = [off, on].map((s) => {
      const a = s.blob([n], 'float32', d);
      const out = s.blob([1], 'float32', [0]);
      const o = s.registry.get('multi_sum_sq');
      s.registry
        .kernel(o, 'cpu-wasm')
        ?.compute?.(o.parseParams({ num_arrays: 1 }), ctx, [a], [OpReq.write], [out]);
      const v = (s.rt.view(out) as Float32Array)[0] as number;
      s.freeAll();
      return v;
    });
    expect(sums[0]).toBe(sums[1]);
    expect(Math.abs((sums[0] as number) - want) / want).toBeLessThan(1e-6);
  });
});
