/**
 * The np products on cuda-native, checked without a GPU: every np_products golden case rendered
 * (launch arguments against each signature, GEMM calls against cuBLAS's rules), every generated
 * source compiled with nvcc and NVRTC, and every case run on the host by the CUDA emulator
 * (g++; cuBLAS replaced by a reference GEMM) and compared with NumPy's values — with req write,
 * req add, and once more with the block-per-output reduction forced on every sum.
 */
import type { DTypeName } from '@mx/base';
import { gpu } from '@mx/base';
import { createOpRegistry, OpReq, type TBlob } from '@mx/ops';
import { describe, expect, it } from 'vitest';
import { CUDA } from '../../../kernel.js';
import { RenderRuntime } from '../../../render-runtime.js';
import { itCompiles } from '../../../test-util/compile.js';
import { emulateCases } from '../../../test-util/host-emulate.js';
import { renderCases } from '../../../test-util/render.js';
import { installNpProducts } from './index.js';
import { simplifyLoop } from './loop.js';

const OPS = [
  '_backward_np_matmul',
  '_backward_npi_dot',
  '_backward_npi_einsum',
  '_backward_npi_kron',
  '_backward_npi_tensordot',
  '_backward_npi_tensordot_int_axes',
  '_npi_dot',
  '_npi_einsum',
  '_npi_kron',
  '_npi_matmul',
  '_npi_tensordot',
  '_npi_tensordot_int_axes',
];

/** Valid np_products cases of the ops above (the 24 of trace run in ../np.test.ts). */
const CASES = 169;

describe('cuda np products kernels', () => {
  const r = renderCases(['np_products'], undefined, installNpProducts);
  const forced = renderCases(['np_products'], undefined, (reg, host) =>
    installNpProducts(reg, host, { blockSum: 1 }),
  );

  it('renders every case with arguments matching each kernel signature', () => {
    expect(r.errors).toEqual([]);
    expect(r.rt.problems).toEqual([]);
    expect(forced.errors).toEqual([]);
    expect(forced.rt.problems).toEqual([]);
    expect([...r.ran.keys()].sort()).toEqual(OPS);
    expect([...r.ran.values()].reduce((a, b) => a + b, 0)).toBe(CASES);
  });

  it('runs GEMM-shaped steps on cuBLAS', () => {
    expect(r.rt.gemms.length).toBeGreaterThan(40);
  });

  const extra = renderDtypes();
  it('renders the dtypes the golden cases do not reach (16-bit floats, unsigned, int16)', () => {
    expect(extra.problems).toEqual([]);
    expect(extra.gemms.length).toBeGreaterThan(0);
    expect(extra.sources.size).toBe(34);
  });

  itCompiles(() => [r.rt, forced.rt, extra]);

  it('matches the golden outputs on the host emulator (req write)', () => {
    const e = emulateCases(['np_products'], installNpProducts, () => true);
    expect(e.problems).toEqual([]);
    expect(e.cases).toBe(CASES);
  }, 600_000);

  it('accumulates into the outputs with req add', () => {
    const e = emulateCases(['np_products'], installNpProducts, () => true, { req: 'add' });
    expect(e.problems).toEqual([]);
    expect(e.cases).toBe(CASES);
  }, 600_000);

  it('matches with a block reducing every sum', () => {
    const e = emulateCases(
      ['np_products'],
      (reg, host) => installNpProducts(reg, host, { blockSum: 1 }),
      () => true,
    );
    expect(e.problems).toEqual([]);
    expect(e.cases).toBe(CASES);
  }, 600_000);
});

/**
 * Forward and backward einsums in float16, bfloat16, uint16, uint32, uint64 and int16 (a GEMM
 * step, a diagonal, a full sum by blocks), recorded for the compile checks.
 */
function renderDtypes(): RenderRuntime {
  const rt = new RenderRuntime();
  const registry = createOpRegistry();
  installNpProducts(registry, { rt }, { blockSum: 8 });
  let next = 0x100000000;
  const blob = (shape: number[], dtype: DTypeName): TBlob<number> => {
    const size = shape.reduce((a, b) => a * b, 1);
    const b = { ptr: next, byteOffset: 0, shape, dtype, size };
    next += size * 8 + 256;
    return b;
  };
  const ctx = { isTrain: false, needGrad: false, ctx: gpu(0), requested: [] };
  const run = (op: string, params: Record<string, unknown>, ins: TBlob<number>[], outs: TBlob<number>[]) => {
    const o = registry.get(op);
    const k = registry.kernel(o, CUDA);
    for (const req of [OpReq.write, OpReq.add])
      k?.compute?.(
        o.parseParams(params),
        ctx,
        ins,
        outs.map(() => req),
        outs,
      );
  };
  for (const dt of ['float16', 'bfloat16', 'uint16', 'uint32', 'uint64', 'int16'] as DTypeName[]) {
    const p = { num_args: 2, subscripts: 'ij,jk->ik' };
    run('_npi_einsum', p, [blob([3, 4], dt), blob([4, 5], dt)], [blob([3, 5], dt)]);
    run('_npi_einsum', { num_args: 1, subscripts: 'ii->i' }, [blob([4, 4], dt)], [blob([4], dt)]);
    run('_npi_einsum', { num_args: 1, subscripts: 'ij->' }, [blob([16, 16], dt)], [blob([], dt)]);
    run(
      '_backward_npi_einsum',
      p,
      [blob([3, 5], dt), blob([3, 4], dt), blob([4, 5], dt)],
      [blob([3, 4], dt), blob([4, 5], dt)],
    );
  }
  return rt;
}

describe('simplifyLoop', () => {
  it('drops length-1 dims and merges contiguous neighbours per group', () => {
    // out (2, 1, 3, 4) dense; summed (5, 6) contiguous in the operand.
    const g = simplifyLoop({
      dims: [2, 1, 3, 4, 5, 6],
      nOut: 4,
      strides: [
        [12 * 30, 0, 4 * 30, 30, 6, 1],
        [12, 0, 4, 1, 0, 0],
      ],
    });
    expect(g).toEqual({
      dims: [24, 30],
      nOut: 1,
      strides: [
        [30, 1],
        [1, 0],
      ],
    });
  });

  it('keeps dims a transposed window walks out of order', () => {
    const g = simplifyLoop({
      dims: [3, 4],
      nOut: 2,
      strides: [
        [1, 3],
        [4, 1],
      ],
    });
    expect(g).toEqual({
      dims: [3, 4],
      nOut: 2,
      strides: [
        [1, 3],
        [4, 1],
      ],
    });
  });
});
