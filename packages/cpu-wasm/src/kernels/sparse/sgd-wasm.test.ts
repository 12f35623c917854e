/**
 * sgd_update with a row_sparse gradient runs in wasm (sgd-module.ts via sgd-run.ts). The NumPy
 * golden cases in optimizer.test.ts cover rows of 1 to 3 elements; here every row width the SIMD
 * loop splits differently (1 to 33), with the values that tell roundings and comparisons apart
 * (NaN, ±0, ±∞, subnormals, large and tiny magnitudes), clip_gradient off, 0 and positive, wd,
 * lazy and standard updates, both dtypes and aux types: the weight must equal, bit for bit, what
 * the JavaScript transcription of MXNet's kernels (optimizer-rows.ts `sgdRows`/`sgdDecayAll`,
 * itself checked against the golden data) computes. Bad row ids keep their MXNetError and leave the
 * weight as it was.
 */
import { isMXNetError } from '@mx/base';
import { OpReq } from '@mx/ops';
import { describe, expect, it } from 'vitest';
import { type Params, sgdDecayAll, sgdRows } from './optimizer-rows.js';
import { type Blob, createSparseHarness } from './test-harness.js';

const { backend, registry, ctx, blob, read, ...h } = createSparseHarness({ initialPages: 64 });

const SPECIAL = [Number.NaN, 0, -0, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 1e-40, -3e38, 7e-8];

/** Seeded values in about [-4, 4], with a special value every few elements. */
function values(seed: number, n: number): number[] {
  let s = seed >>> 0;
  return Array.from({ length: n }, (_, i) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return i % 5 === 3 ? (SPECIAL[s % SPECIAL.length] as number) : (s / 2 ** 32 - 0.5) * 8;
  });
}

function sgd(weight: Blob, grad: ReturnType<typeof h.rsp>, params: Record<string, unknown>): void {
  const op = registry.get('sgd_update');
  const kernel = registry.kernel(op, backend.name);
  kernel?.computeEx?.(op.parseParams(params), ctx, [weight, grad], [OpReq.inplace], [weight]);
}

/** Same bits: NaN equals NaN, -0 differs from 0. */
function sameBits(got: number[], want: ArrayLike<number>): string {
  const bad = got.findIndex((g, i) => !Object.is(g, want[i]));
  const show = (x: number | undefined) => (Object.is(x, -0) ? '-0' : String(x));
  return bad === -1 ? 'equal' : `element ${bad}: ${show(got[bad])}, expected ${show(want[bad])}`;
}

describe('sgd_update (row_sparse gradient) in wasm equals the JavaScript transcription', () => {
  const rows = 11;
  const gradRows = [0, 2, 3, 7, 10];
  for (const dtype of ['float32', 'float64'] as const)
    for (const aux of ['int64', 'int32'] as const)
      it(`${dtype}, ${aux}: widths 1..33, clip off/0/0.75, wd, lazy and standard`, () => {
        const F = dtype === 'float32' ? Float32Array : Float64Array;
        const r = dtype === 'float32' ? Math.fround : (x: number) => x;
        let seed = 1;
        for (const rowLen of [1, 2, 3, 4, 5, 7, 8, 9, 16, 33])
          for (const clip of [-1, 0, 0.75])
            for (const wd of [0, 0.125])
              for (const lazy of [true, false]) {
                const w0 = F.from(values(seed++, rows * rowLen));
                const g0 = F.from(values(seed++, gradRows.length * rowLen));
                // -0 weight with a -0 gradient: the sign a clip bound of 0 must keep.
                w0[0] = -0;
                g0[0] = -0;
                const weight = blob([rows, rowLen], dtype, w0);
                const grad = h.rsp([rows, rowLen], dtype, { data: g0, indices: gradRows }, aux);
                const params = { lr: 0.3, wd, rescale_grad: 1 / 3, clip_gradient: clip, lazy_update: lazy };
                sgd(weight, grad, params);
                const want = F.from(w0);
                const p: Params = {
                  lr: Math.fround(0.3),
                  wd: Math.fround(wd),
                  rescale: Math.fround(1 / 3),
                  clip: Math.fround(clip),
                  momentum: 0,
                  beta1: 0,
                  beta2: 0,
                  epsilon: 0,
                  lamda1: 0,
                  beta: 0,
                };
                const a = { rows, rowLen, idx: Float64Array.from(gradRows), g: g0, w: want, s: [], r };
                if (lazy) sgdRows(a, p, p.wd);
                else {
                  sgdDecayAll(a, p);
                  sgdRows(a, p, 0);
                }
                expect(
                  sameBits(read(weight), want),
                  `width ${rowLen}, clip ${clip}, wd ${wd}, lazy ${lazy}`,
                ).toBe('equal');
              }
      });

  it('a gradient with no rows leaves a lazy update as it was and decays a standard one', () => {
    const w0 = [1, -2, 3, 0.5];
    const weight = blob([2, 2], 'float32', w0);
    const empty = h.rsp([2, 2], 'float32', { data: [], indices: [] });
    sgd(weight, empty, { lr: 0.5, wd: 0.5, lazy_update: true });
    expect(read(weight)).toEqual(w0);
    sgd(weight, empty, { lr: 0.5, wd: 0.5, lazy_update: false });
    expect(read(weight)).toEqual(w0.map((x) => x * 0.75));
  });
});

describe('bad row ids', () => {
  it('out of range, repeated or descending ids are an MXNetError and the weight is untouched', () => {
    const cases: [number[], RegExp][] = [
      [[0, 4], /row 4 at grad.indices\[1\] is outside \[0, 4\)/],
      [[-1, 2], /row -1 at grad.indices\[0\] is outside/],
      [[2 ** 32 + 1, 2], /row 4294967297 at grad.indices\[0\] is outside/],
      [[1, 1], /strictly increasing, indices\[0\] = 1 then 1/],
      [[3, 2], /strictly increasing, indices\[0\] = 3 then 2/],
    ];
    for (const [indices, message] of cases)
      for (const aux of ['int64', 'int32'] as const) {
        if (aux === 'int32' && indices.some((i) => i > 2 ** 31)) continue;
        const w0 = [1, 2, 3, 4, 5, 6, 7, 8];
        const weight = blob([4, 2], 'float32', w0);
        const grad = h.rsp([4, 2], 'float32', { data: [1, 1, 1, 1], indices }, aux);
        let error: unknown;
        try {
          sgd(weight, grad, { lr: 0.5, lazy_update: true });
        } catch (e) {
          error = e;
        }
        expect(isMXNetError(error), `${indices} ${aux}`).toBe(true);
        expect((error as Error).message).toMatch(message);
        expect(read(weight)).toEqual(w0);
      }
  });
});
