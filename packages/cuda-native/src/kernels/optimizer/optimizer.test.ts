/**
 * The optimizer family's CUDA C, checked without a GPU: every golden optimizer case is rendered on
 * a RenderRuntime and the generated sources are compiled with nvcc and NVRTC. Beyond the golden
 * cases, req=add/null and the clipping variants are rendered directly, and the host-side planning
 * (uniform rounding, multi_* tables in one launch, multi_sum_sq's partition) is checked.
 */
import { existsSync } from 'node:fs';
import { type DTypeName, gpu, type Shape } from '@mx/base';
import { createOpRegistry, type OpContext, OpReq, type OpReqType, type TBlob } from '@mx/ops';
import { describe, expect, it } from 'vitest';
import { CUDA } from '../../kernel.js';
import { RenderRuntime } from '../../render-runtime.js';
import { itCompiles } from '../../test-util/compile.js';
import { emulateCases } from '../../test-util/host-emulate.js';
import { renderCases } from '../../test-util/render.js';
import { installOptimizer } from './index.js';
import { partsFor } from './sum-sq.js';

const gxx = ['/usr/bin/g++', '/usr/local/bin/g++'].some((p) => existsSync(p));

let nextPtr = 0x400000000;
const blob = (shape: Shape, dtype: DTypeName): TBlob<number> => {
  const size = shape.reduce((a, b) => a * b, 1);
  const b = { ptr: nextPtr, byteOffset: 0, shape, dtype, size };
  nextPtr += Math.ceil((size * 8 + 256) / 256) * 256;
  return b;
};

/** Run op's cuda kernel on `rt`; returns the error message, if any. */
function runDirect(
  rt: RenderRuntime,
  op: string,
  params: Record<string, unknown>,
  inputs: TBlob<number>[],
  outputs: TBlob<number>[],
  req: OpReqType = OpReq.write,
): string | undefined {
  const registry = createOpRegistry();
  installOptimizer(registry, { rt });
  const def = registry.get(op);
  const kernel = registry.kernel(def, CUDA);
  let failure: string | undefined;
  const ctx: OpContext = {
    isTrain: true,
    needGrad: false,
    ctx: gpu(0),
    requested: [],
    onComplete: (e?: unknown) => {
      if (e !== undefined) failure = (e as Error).message;
    },
  };
  kernel?.compute?.(
    def.parseParams(params),
    ctx,
    inputs,
    outputs.map(() => req),
    outputs,
  );
  return failure;
}

describe('cuda optimizer kernels', () => {
  const r = renderCases(['optimizer'], undefined, (reg, host) => installOptimizer(reg, host));
  const extra = new RenderRuntime();
  const extraErrors: string[] = [];
  const s = [7, 3];
  const variants: [string, Record<string, unknown>, DTypeName[]][] = [
    ['sgd_update', { lr: 0.1, clip_gradient: 1 }, ['float32', 'float32']],
    ['sgd_mom_update', { lr: 0.1, momentum: 0.9, clip_gradient: 1 }, ['float64', 'float64', 'float64']],
    ['nag_mom_update', { lr: 0.1, momentum: 0.9, clip_gradient: 1 }, ['float32', 'float32', 'float32']],
    ['adam_update', { lr: 0.1, clip_gradient: 1 }, ['float32', 'float32', 'float32', 'float32']],
    ['rmsprop_update', { lr: 0.1, clip_gradient: 1, clip_weights: 2 }, ['float64', 'float64', 'float64']],
    ['signum_update', { lr: 0.1, clip_gradient: 1 }, ['float32', 'float32', 'float32']],
    [
      '_mp_adamw_update',
      { lr: 0.1, eta: 1, clip_gradient: 1 },
      ['float16', 'float16', 'float32', 'float32', 'float32', 'float32'],
    ],
    ['mp_sgd_mom_update', { lr: 0.1, momentum: 0.9 }, ['float16', 'float16', 'float32', 'float32']],
  ];
  for (const req of [OpReq.add, OpReq.null]) {
    for (const [op, p, dts] of variants) {
      const ins = dts.map((d, i) => blob(op.includes('adamw') && i === dts.length - 1 ? [1] : s, d));
      const e = runDirect(extra, op, p, ins, [blob(s, dts[0] as DTypeName)], req);
      if (e !== undefined) extraErrors.push(`${op}/${req}: ${e}`);
    }
  }

  it('renders every case with arguments matching each kernel signature', () => {
    expect(r.errors).toEqual([]);
    expect(r.rt.problems).toEqual([]);
    expect([...r.ran.keys()].sort()).toEqual([
      '_adamw_update',
      '_mp_adamw_update',
      'adam_update',
      'ftrl_update',
      'lamb_update_phase1',
      'lamb_update_phase2',
      'mp_sgd_mom_update',
      'mp_sgd_update',
      'multi_mp_sgd_mom_update',
      'multi_mp_sgd_update',
      'multi_sgd_mom_update',
      'multi_sgd_update',
      'multi_sum_sq',
      'nag_mom_update',
      'rmsprop_update',
      'rmspropalex_update',
      'sgd_mom_update',
      'sgd_update',
      'signsgd_update',
      'signum_update',
    ]);
  });

  it('renders req=add, req=null and the clipping variants', () => {
    expect(extraErrors).toEqual([]);
    expect(extra.problems).toEqual([]);
    expect(extra.launches.length).toBe(variants.length * 2);
  });

  it('rounds uniforms to float32 for float32 weights and keeps float64 products for float64', () => {
    const rt = new RenderRuntime();
    const p = { lr: 0.1, wd: 0.3, rescale_grad: 0.7 };
    expect(
      runDirect(rt, 'sgd_update', p, [blob([4], 'float32'), blob([4], 'float32')], [blob([4], 'float32')]),
    ).toBe(undefined);
    expect(
      runDirect(rt, 'sgd_update', p, [blob([4], 'float64'), blob([4], 'float64')], [blob([4], 'float64')]),
    ).toBe(undefined);
    const F = Math.fround;
    const [lr, wd, rg] = [F(0.1), F(0.3), F(0.7)];
    // (n, weight, grad, out, 1-lr*wd, lr, rescale, clip, lr*rescale)
    const a32 = rt.launches[0]?.args ?? [];
    expect(a32.slice(4).map((a) => a.t)).toEqual(['f32', 'f32', 'f32', 'f32', 'f32']);
    expect(a32.slice(4).map((a) => a.v)).toEqual([F(1 - F(lr * wd)), lr, rg, -1, F(lr * rg)]);
    const a64 = rt.launches[1]?.args ?? [];
    expect(a64.slice(4).map((a) => a.t)).toEqual(['f64', 'f64', 'f64', 'f64', 'f64']);
    expect(a64.slice(4).map((a) => a.v)).toEqual([1 - lr * wd, lr, rg, -1, lr * rg]);
  });

  it('runs every weight of a multi_* call in one launch', () => {
    const rt = new RenderRuntime();
    const n = 5;
    const ins: TBlob<number>[] = [];
    const outs: TBlob<number>[] = [];
    for (let i = 0; i < n; i++) {
      const shape = [i * 100 + 1];
      ins.push(blob(shape, 'float32'), blob(shape, 'float32'), blob(shape, 'float32'));
      outs.push(blob(shape, 'float32'));
    }
    const p = { num_weights: n, lrs: [0.1, 0.2, 0.3, 0.4, 0.5], wds: [0, 0, 0, 0, 0.1], momentum: 0.9 };
    expect(runDirect(rt, 'multi_sgd_mom_update', p, ins, outs)).toBe(undefined);
    expect(rt.problems).toEqual([]);
    expect(rt.launches.length).toBe(1);
    expect(rt.launches[0]?.grid).toEqual([2, n]);
    expect(rt.launches[0]?.args.map((a) => a.t)).toEqual(['ptr', 'ptr', 'i32']);
  });

  it('partitions multi_sum_sq arrays into a bounded number of partial blocks', () => {
    expect(partsFor(0)).toBe(1);
    expect(partsFor(4096)).toBe(1);
    expect(partsFor(4097)).toBe(2);
    expect(partsFor(1e9)).toBe(256);
    const rt = new RenderRuntime();
    const ins = [blob([10], 'float32'), blob([0], 'float32'), blob([70000], 'float32')];
    expect(runDirect(rt, 'multi_sum_sq', { num_arrays: 3 }, ins, [blob([3], 'float32')])).toBe(undefined);
    expect(rt.launches.map((l) => l.grid)).toEqual([[18, 3], [3]]);
  });

  it('reports weights it cannot compute in as errors naming the op', () => {
    const rt = new RenderRuntime();
    const e = runDirect(
      rt,
      'sgd_update',
      { lr: 0.1 },
      [blob([4], 'float16'), blob([4], 'float16')],
      [blob([4], 'float16')],
    );
    expect(e).toMatch(/sgd_update computes in float32 or float64/);
  });

  it.skipIf(!gxx)(
    'computes the golden optimizer values when the generated C runs on the host (g++ emulation)',
    () => {
      const res = emulateCases(['optimizer'], installOptimizer, (op) => op !== 'multi_sum_sq');
      expect(res.problems).toEqual([]);
      expect(res.cases).toBeGreaterThan(0);
      console.log(`host emulation: ${res.cases} optimizer cases, ${res.arrays} arrays compared`);
    },
    300_000,
  );

  itCompiles(() => [r.rt, extra]);
});
