/**
 * cpu-wasm kernels of the value reductions: sum, mean, prod, max, min, nansum, nanprod, norm.
 *
 * Each call plans the reduction (plan.ts), runs it with the generated wasm SIMD loops for
 * float32/float64 (large calls split across the worker pool, split.ts) or the TypeScript loops for
 * integers, then a small pass over the *output*
 * applies the op's finish (mean divides by the count, norm's ord 2 takes the square root), casts
 * to the output dtype and honours req. The loops write straight into the output when req is write
 * and the dtype matches; otherwise into a temporary block of the shared memory.
 */
import { type DTypeName, MXNetError } from '@mx/base';
import { type Attrs, type OpRegistry, OpReq, type OpReqType, type TBlob } from '@mx/ops';
import type { CpuWasmRuntime } from '../../runtime.js';
import { converterTo, REDUCE_DTYPES, storerFor, unsupportedDType } from './convert.js';
import { planReduce, type ReduceLoops, reducedFlags, runPlan } from './plan.js';
import { reduceKernel, splitLoops } from './split.js';
import { arithOf, reduceFns, tsLoops } from './ts-loops.js';
import type { WasmReduceOp } from './wasm-loops.js';

type Finish = 'none' | 'mean' | 'sqrt';

/** The loops for (dtype, op): wasm SIMD for floats when available, TypeScript otherwise. */
export function reduceLoops(
  rt: CpuWasmRuntime,
  dtype: DTypeName,
  op: WasmReduceOp,
  opName: string,
): ReduceLoops {
  if ((dtype === 'float32' || dtype === 'float64') && rt.features.simd) {
    return reduceKernel(rt, dtype, op).exports as unknown as ReduceLoops;
  }
  const A = arithOf(dtype, opName);
  const sz = rt.itemSize(dtype);
  const view = () => rt.memory.view(dtype, 0, Math.floor(rt.memory.byteLength / sz));
  return tsLoops(view, sz, reduceFns(A as never, op) as never);
}

/**
 * Reduce `x` over the flagged axes into `y` with req: the shared driver of every value reduction.
 * Exported so composite kernels (and later a threaded driver) reuse it.
 */
export function reduceInto(
  rt: CpuWasmRuntime,
  opName: string,
  op: WasmReduceOp,
  finish: Finish,
  x: TBlob<number>,
  y: TBlob<number>,
  reduced: readonly boolean[],
  req: OpReqType,
): void {
  if (req === OpReq.null || y.size === 0) return;
  const dt = x.dtype;
  const sz = rt.itemSize(dt);
  const direct = req !== OpReq.add && y.dtype === dt;
  const alloc = rt.memory.allocator;
  const tmpBytes = y.size * sz;
  const tmp = direct ? null : alloc.alloc(tmpBytes);
  if (!direct && tmp === null) {
    throw new MXNetError(`out of memory for a ${tmpBytes}-byte reduce buffer`, {
      op: opName,
      shapes: [x.shape],
      device: 'cpu-wasm',
    });
  }
  try {
    const target = tmp ?? rt.address(y);
    let count = 1;
    for (let i = 0; i < x.shape.length; i++) if (reduced[i]) count *= x.shape[i] as number;
    if (x.size === 0) {
      const fns = reduceFns(arithOf(dt, opName) as never, op) as { id: number | bigint };
      const t = rt.memory.view(dt, target, y.size);
      t.fill(fns.id as never);
    } else {
      const loops =
        (dt === 'float32' || dt === 'float64') && rt.features.simd
          ? splitLoops(rt, dt, op)
          : reduceLoops(rt, dt, op, opName);
      runPlan(planReduce(x.shape, reduced), loops, rt.address(x), target, sz);
    }
    finishInto(rt, opName, finish, count, dt, target, y, req, direct);
  } finally {
    if (tmp !== null) alloc.free(tmp, tmpBytes);
  }
}

function finishInto(
  rt: CpuWasmRuntime,
  opName: string,
  finish: Finish,
  count: number,
  dt: DTypeName,
  src: number,
  y: TBlob<number>,
  req: OpReqType,
  direct: boolean,
): void {
  if (direct && finish === 'none') return;
  const n = y.size;
  const s = rt.memory.view(dt, src, n) as unknown as (number | bigint)[];
  const isInt = dt !== 'float32' && dt !== 'float64';
  const back = converterTo(dt, opName);
  let post: (v: number | bigint) => number | bigint;
  if (finish === 'mean') {
    if (dt === 'int64') post = (v) => (count === 0 ? 0n : (v as bigint) / BigInt(count));
    else if (isInt) post = (v) => (count === 0 ? 0 : Math.trunc((v as number) / count));
    else post = (v) => back((v as number) / count);
  } else if (finish === 'sqrt') {
    post = (v) => back(Math.sqrt(v as number));
  } else {
    post = (v) => v;
  }
  if (direct) {
    for (let i = 0; i < n; i++) s[i] = post(s[i] as number | bigint);
    return;
  }
  const store = storerFor(rt.view(y), y.dtype, req, opName);
  for (let i = 0; i < n; i++) store(i, post(s[i] as number | bigint));
}

interface ReduceAxesAttrs extends Attrs {
  readonly axis: readonly number[] | null;
  readonly keepdims: boolean;
  readonly exclude: boolean;
}

interface NormAttrs extends Attrs {
  readonly ord: number;
  readonly axis: readonly number[] | null;
}

const VALUE_OPS: readonly (readonly [string, WasmReduceOp, Finish])[] = [
  ['sum', 'sum', 'none'],
  ['mean', 'sum', 'mean'],
  ['prod', 'prod', 'none'],
  ['max', 'max', 'none'],
  ['min', 'min', 'none'],
  ['nansum', 'nansum', 'none'],
  ['nanprod', 'nanprod', 'none'],
];

const FLOATS: readonly DTypeName[] = ['float32', 'float64'];

export function installValueReduces(registry: OpRegistry, rt: CpuWasmRuntime): void {
  for (const [name, op, finish] of VALUE_OPS) {
    registry.registerKernel<ReduceAxesAttrs>(name, 'cpu-wasm', {
      dtypes: REDUCE_DTYPES,
      compute(attrs, _ctx, inputs, req, outputs) {
        const x = inputs[0] as TBlob<number>;
        const y = outputs[0] as TBlob<number>;
        if (!REDUCE_DTYPES.includes(x.dtype)) throw unsupportedDType(name, x.dtype, REDUCE_DTYPES);
        const flags = reducedFlags(x.shape.length, attrs.axis, attrs.exclude);
        reduceInto(rt, name, op, finish, x, y, flags, req[0] as OpReqType);
      },
    });
  }
  registry.registerKernel<NormAttrs>('norm', 'cpu-wasm', {
    dtypes: FLOATS,
    compute(attrs, _ctx, inputs, req, outputs) {
      const x = inputs[0] as TBlob<number>;
      const y = outputs[0] as TBlob<number>;
      if (!FLOATS.includes(x.dtype)) throw unsupportedDType('norm', x.dtype, FLOATS);
      if (!REDUCE_DTYPES.includes(y.dtype)) throw unsupportedDType('norm', y.dtype, REDUCE_DTYPES);
      const flags = reducedFlags(x.shape.length, attrs.axis, false);
      const [op, finish]: [WasmReduceOp, Finish] = attrs.ord === 1 ? ['sumabs', 'none'] : ['sumsq', 'sqrt'];
      reduceInto(rt, 'norm', op, finish, x, y, flags, req[0] as OpReqType);
    },
  });
}
