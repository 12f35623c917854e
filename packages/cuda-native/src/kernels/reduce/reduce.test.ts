/**
 * The reduce family's kernels rendered from the golden `reduce` cases on a RenderRuntime (no GPU)
 * and compiled with nvcc and NVRTC; plus the req=add paths (the harness renders req=write only) and
 * the long-lane paths (multi-pass reductions, the multi-kernel sort), which golden cases are too
 * small to reach.
 */
import type { DTypeName } from '@mx/base';
import { gpu } from '@mx/base';
import { createOpRegistry, type OpContext, OpReq, type OpReqType } from '@mx/ops';
import { describe, expect, it } from 'vitest';
import type { CudaBlob } from '../../kernel.js';
import type { RenderRuntime } from '../../render-runtime.js';
import { itCompiles } from '../../test-util/compile.js';
import { renderCases } from '../../test-util/render.js';
import { argReduce } from './arg-ops.js';
import { installReduce } from './index.js';
import { reduceInto } from './reduce-engine.js';
import { sortLanes } from './sort.js';

let addrNext = 0x200000000;
const blob = (shape: number[], dtype: DTypeName): CudaBlob => {
  const size = shape.reduce((a, b) => a * b, 1);
  const b = { ptr: addrNext, byteOffset: 0, shape, dtype, size };
  addrNext += Math.ceil((size * 8 + 256) / 256) * 256;
  return b;
};

/** Extra renders: req=add through every kernel shape, and lanes long enough for the multi-pass paths. */
function renderExtras(rt: RenderRuntime): void {
  const reg = createOpRegistry();
  installReduce(reg, { rt });
  const ctx: OpContext = {
    isTrain: false,
    needGrad: false,
    ctx: gpu(0),
    requested: [],
    onComplete: () => {},
  };
  const run = (
    op: string,
    params: Record<string, unknown>,
    ins: CudaBlob[],
    outs: CudaBlob[],
    req: OpReqType,
  ) => {
    const def = reg.get(op);
    const k = reg.kernel(def, 'cuda');
    k?.compute?.(
      def.parseParams(params),
      ctx,
      ins,
      outs.map(() => req),
      outs,
    );
  };
  rt.runOp('reduce-extras', ctx, () => {
    for (const d of ['float32', 'float16', 'int8', 'int64'] as const) {
      reduceInto(
        rt,
        'sum',
        'sum',
        'mean',
        blob([3, 100000], d),
        [3, 100000],
        [false, true],
        blob([3], d),
        OpReq.add,
      );
      reduceInto(
        rt,
        'max',
        'max',
        'none',
        blob([40000000], d),
        [40000000],
        [true],
        blob([1], d),
        OpReq.write,
      );
      argReduce(rt, 'argmax', true, null, blob([40000000], d), blob([1], d), OpReq.add);
      sortLanes(rt, 'topk', blob([3, 10000], d), 1, 5, false, {
        values: { blob: blob([3, 5], d), req: OpReq.add },
        indices: { blob: blob([3, 5], 'int64'), req: OpReq.write },
      });
      sortLanes(rt, 'topk', blob([3, 10000], d), 1, 5, true, {
        mask: { blob: blob([3, 10000], d), req: OpReq.write },
      });
    }
  });
  rt.runOp('reduce-extras', ctx, () => {
    // 3 passes (partials of partials) for 3e8 elements.
    reduceInto(
      rt,
      'sum',
      'sum',
      'none',
      blob([300000000], 'float32'),
      [300000000],
      [true],
      blob([1], 'float32'),
      OpReq.write,
    );
    argReduce(rt, 'argmin', false, null, blob([300000000], 'float64'), blob([1], 'float64'), OpReq.write);
  });
  const x = blob([4, 300, 5], 'float32');
  run('sum', { axis: [1] }, [x], [blob([4, 5], 'float32')], OpReq.add);
  run(
    'norm',
    { ord: 2, out_dtype: 'float16' },
    [blob([4, 5], 'bfloat16')],
    [blob([1], 'float16')],
    OpReq.add,
  );
  run('argmin', { axis: 1 }, [x], [blob([4, 5], 'float32')], OpReq.add);
  run('sort', { axis: 1 }, [x], [blob([4, 300, 5], 'float32'), blob([4, 300, 5], 'int32')], OpReq.add);
  run('_np_cumsum', { axis: 1 }, [x], [blob([4, 300, 5], 'float32')], OpReq.add);
  run(
    '_np_cumsum',
    { axis: 1, dtype: 'float16' },
    [blob([2, 5, 3], 'int8')],
    [blob([2, 5, 3], 'float16')],
    OpReq.add,
  );
  run(
    '_backward_mean',
    { axis: [1] },
    [blob([4, 5], 'float16'), x],
    [blob([4, 300, 5], 'float16')],
    OpReq.add,
  );
  run(
    '_backward_topk',
    { axis: 1, k: 2 },
    [blob([4, 2, 5], 'int8'), blob([4, 2, 5], 'float16'), x],
    [blob([4, 300, 5], 'int8')],
    OpReq.add,
  );
  run(
    '_broadcast_backward',
    {},
    [blob([4, 5], 'int64'), blob([4, 5], 'bool')],
    [blob([4, 5], 'int64')],
    OpReq.add,
  );
}

describe('cuda reduce kernels', () => {
  const r = renderCases(['reduce'], undefined, (reg, host) => installReduce(reg, host));
  renderExtras(r.rt);

  it('renders every case with arguments matching each kernel signature', () => {
    expect(r.errors).toEqual([]);
    expect(r.rt.problems).toEqual([]);
    expect([...r.ran.keys()].sort()).toEqual(
      [
        '_backward_mean',
        '_backward_sum',
        '_backward_topk',
        '_broadcast_backward',
        '_np_cumsum',
        'argmax',
        'argmin',
        'max',
        'mean',
        'min',
        'nanprod',
        'nansum',
        'norm',
        'prod',
        'sort',
        'argsort',
        'sum',
        'topk',
      ].sort(),
    );
    expect(r.missing).toEqual(new Set());
    console.info(
      `reduce: ${[...r.ran.values()].reduce((a, b) => a + b, 0)} cases, ${r.rt.sources.size} kernels`,
    );
  });

  it('splits long reductions into passes and long sorts into several kernels', () => {
    const ops = r.rt.launches
      .filter((l) => l.op === 'reduce-extras')
      .map((l) => l.source.entry.replace(/_[0-9a-f]+$/, ''));
    expect(ops).toContain('mx_sort_local');
    expect(ops).toContain('mx_sort_global');
    expect(ops).toContain('mx_sort_finish');
    expect(ops.filter((e) => e === 'mx_reduce_max').length).toBe(8);
    expect(ops.filter((e) => e === 'mx_argmax').length).toBe(8);
    expect(ops.filter((e) => e === 'mx_reduce_sum').length).toBe(4 * 2 + 3);
    expect(ops.filter((e) => e === 'mx_argmin').length).toBe(3);
  });

  itCompiles(() => [r.rt]);
});
