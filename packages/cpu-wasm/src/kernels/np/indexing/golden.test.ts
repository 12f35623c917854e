/**
 * The np_indexing golden cases (tools/golden/ops/np_indexing.py, NumPy 1.24.2) through an @mx
 * runtime on cpu-wasm with the conformance runner, as the conformance suite runs them once the
 * family is listed in golden.ts — the dynamic-shape ops (boolean_mask, nonzero) included: the
 * ndarray target's `runtime.invoke` runs their kernels synchronously on cpu-wasm. Plus the
 * conformance gradient check on every differentiable op's cases, and the tensor mask assignment's
 * gradients through autograd (data keeps what was not written, the value sums what it wrote).
 */
import { ndarrayTarget, runCase } from '@mx/conformance';
import { describe, expect, it } from 'vitest';
import { caseFailures, gradCheckSweep, loadGoldenFamily } from '../golden-harness.js';

const { cases, runtime } = loadGoldenFamily('np_indexing');

/** The operators the np indexing area registers (packages/ops/src/defs/np/indexing/). */
const AREA_OPS = [
  '_contrib_boolean_mask',
  '_backward_contrib_boolean_mask',
  '_npx_nonzero',
  'gather_nd',
  '_backward_gather_nd',
  '_scatter_set_nd',
  '_slice_assign',
  '_slice_assign_scalar',
  '_npi_boolean_mask_assign_scalar',
  '_npi_boolean_mask_assign_tensor',
  '_backward_npi_boolean_mask_assign_tensor_value',
];

describe('np_indexing golden cases on cpu-wasm', () => {
  it('covers every op of the area (aliases resolved, backward ops included) with values and errors', () => {
    const covered = new Map<string, { values: number; errors: number }>();
    for (const c of cases) {
      const name = runtime.registry.get(c.op).name;
      const n = covered.get(name) ?? { values: 0, errors: 0 };
      if (c.error === undefined) n.values++;
      else n.errors++;
      covered.set(name, n);
    }
    for (const op of AREA_OPS) {
      expect(runtime.registry.get(op).name, op).toBe(op);
      expect(runtime.registry.get(op).kernels.has('cpu-wasm'), op).toBe(true);
      expect(covered.get(op)?.values ?? 0, op).toBeGreaterThanOrEqual(3);
    }
    expect([...covered.keys()].filter((n) => !AREA_OPS.includes(n))).toEqual([]);
    for (const alias of ['_npi_boolean_mask', '_npi_nonzero', '_npi_gather_nd', '_npx_gather_nd'])
      expect(
        cases.some((c) => c.op === alias),
        alias,
      ).toBe(true);
    // Out-of-range indices and mask shape mismatches, in the kernels' and inference's words.
    const errors = cases.filter((c) => c.error !== undefined);
    expect(errors.filter((c) => /out of bounds for axis/.test(c.error ?? '')).length).toBeGreaterThanOrEqual(
      4,
    );
    expect(
      errors.filter((c) => /boolean index did not match/.test(c.error ?? '')).length,
    ).toBeGreaterThanOrEqual(3);
  });

  it('every case matches NumPy (values, or the MXNetError text)', async () => {
    expect(await caseFailures(runtime, cases)).toEqual([]);
  }, 120_000);

  it('cases, failing ones included, leave nothing allocated', async () => {
    const target = ndarrayTarget(runtime);
    const some = cases.filter((c, i) => c.error !== undefined || i % 7 === 0);
    await runtime.nd.leakCheck(async () => {
      for (const c of some) await runCase(target, c);
    });
  });

  it('gradients of the differentiable ops match central differences', async () => {
    const { failures, checked } = await gradCheckSweep(runtime, cases, { byRegistryName: true });
    expect(failures).toEqual([]);
    for (const op of [
      '_contrib_boolean_mask',
      'gather_nd',
      '_scatter_set_nd',
      '_slice_assign',
      '_slice_assign_scalar',
      '_npi_boolean_mask_assign_scalar',
      // data and value (input 2) gradients, the value's summed over its broadcast axes
      '_npi_boolean_mask_assign_tensor',
      // its value gradient's own gradient (the forward assignment into zeros: second order)
      '_backward_npi_boolean_mask_assign_tensor_value',
    ])
      expect(checked.get(op) ?? 0, op).toBeGreaterThanOrEqual(3);
  }, 300_000);

  it('the tensor mask assignment sends data the elements it kept and the value those it wrote', async () => {
    const { nd, autograd } = runtime;
    await nd.scope(async () => {
      const x = nd.array([1, 2, 3, 4, 5, 6], { shape: [3, 2], dtype: 'float64' });
      const m = nd.array([1, 0, 1], { shape: [3], dtype: 'bool' });
      const v = nd.array([7, 8], { shape: [2], dtype: 'float64' });
      x.attachGrad();
      v.attachGrad();
      const [y] = autograd.record(() => runtime.invoke('_npi_boolean_mask_assign_tensor', [x, m, v], {}));
      autograd.backward([y as never], {
        headGrads: [nd.array([1, 2, 3, 4, 5, 6], { shape: [3, 2], dtype: 'float64' })],
      });
      expect(Array.from((await y?.data()) as Float64Array)).toEqual([7, 8, 3, 4, 7, 8]);
      expect(Array.from((await x.grad?.data()) as Float64Array)).toEqual([0, 0, 3, 4, 0, 0]);
      // v (2,) broadcast over the 2 selected rows: each element collects its column, 1+5 and 2+6.
      expect(Array.from((await v.grad?.data()) as Float64Array)).toEqual([6, 8]);
    });
  });

  it('the value gradient adds into out= with req=add, and a bad count fails with the NumPy message', async () => {
    const { nd } = runtime;
    await nd.scope(async () => {
      const op = '_backward_npi_boolean_mask_assign_tensor_value';
      const g = nd.array([1, 2, 3, 4, 5, 6], { shape: [3, 2], dtype: 'float32' });
      const m = nd.array([0, 1, 1], { shape: [3], dtype: 'int32' });
      const out = nd.array([10, 20, 30, 40], { shape: [2, 2], dtype: 'float32' });
      runtime.invoke(op, [g, m, out], {}, { out, req: 'add' });
      expect(Array.from((await out.data()) as Float32Array)).toEqual([13, 24, 35, 46]);
      const bad = nd.array([1, 1, 1, 1, 1, 1], { shape: [3, 2], dtype: 'float32' });
      let err: unknown;
      try {
        runtime.invoke(op, [g, m, bad], {}, { out: bad, req: 'add' });
        bad.dataSync();
      } catch (e) {
        err = e;
      }
      expect((err as Error).message).toContain(
        'shape mismatch: value array of shape (3,2) could not be broadcast to indexing result of shape (2,2)',
      );
      // The failure stays on the written array: the inputs read are intact.
      expect(Array.from(g.dataSync() as Float32Array)).toEqual([1, 2, 3, 4, 5, 6]);
      expect(Array.from(out.dataSync() as Float32Array)).toEqual([13, 24, 35, 46]);
    });
  });
});
