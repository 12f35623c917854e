/**
 * cpu-wasm kernels of sort, argsort and topk: TypeScript over typed views, one lane (the axis, or
 * the flattened array) at a time. Every lane sorts an index array with a stable comparator, so ties
 * keep input order in both directions (MXNet's CPU path uses std::sort, whose tie order is
 * unspecified; NumPy's kind='stable' is the reference). NaN sorts above +inf, as NumPy places it
 * last ascending; descending order is the exact reverse of that ranking with ties still in input
 * order, so topk (largest first) takes NaNs first.
 */
import type { DTypeName } from '@mx/base';
import { type Attrs, type OpRegistry, OpReq, type OpReqType, type TBlob } from '@mx/ops';
import type { CpuWasmRuntime } from '../../runtime.js';
import { isNaNValue, REDUCE_DTYPES, storerFor, unsupportedDType } from './convert.js';
import { laneGeometry } from './index-kernels.js';

type RetTyp = 'value' | 'indices' | 'mask' | 'both';

interface TopKAttrs extends Attrs {
  readonly axis: number | null;
  readonly k: number;
  readonly ret_typ: RetTyp;
  readonly is_ascend: boolean;
}

/** Ascending order with NaN last (NumPy); -0 and +0 tie. */
function ascending(a: number | bigint, b: number | bigint): number {
  if (a < b) return -1;
  if (a > b) return 1;
  const an = isNaNValue(a);
  const bn = isNaNValue(b);
  return an === bn ? 0 : an ? 1 : -1;
}

/** Which outputs a topk-style call writes, by position. */
interface Writes {
  readonly values?: number;
  readonly indices?: number;
  readonly mask?: number;
}

function topkCompute(
  rt: CpuWasmRuntime,
  name: string,
  axis: number | null,
  kParam: number,
  ascend: boolean,
  writes: Writes,
  inputs: readonly TBlob[],
  req: readonly OpReqType[],
  outputs: readonly TBlob[],
): void {
  const x = inputs[0] as TBlob<number>;
  if (!REDUCE_DTYPES.includes(x.dtype)) throw unsupportedDType(name, x.dtype, REDUCE_DTYPES);
  for (const o of outputs)
    if (!REDUCE_DTYPES.includes(o.dtype)) throw unsupportedDType(name, o.dtype, REDUCE_DTYPES);
  if (x.size === 0) return;
  const [outer, n, inner] = laneGeometry(x.shape, axis);
  const k = kParam > 0 ? Math.min(kParam, n) : n;
  const v = rt.view(x) as unknown as (number | bigint)[];
  const out = (i: number | undefined) => {
    if (i === undefined || req[i] === OpReq.null) return null;
    const b = outputs[i] as TBlob<number>;
    return storerFor(rt.view(b), b.dtype as DTypeName, req[i] as OpReqType, name);
  };
  const putValue = out(writes.values);
  const putIndex = out(writes.indices);
  const putMask = out(writes.mask);
  if (putMask && writes.mask !== undefined && req[writes.mask] !== OpReq.add) {
    rt.zero(outputs[writes.mask] as TBlob<number>);
  }
  const vals = new Array<number | bigint>(n);
  const idx = new Array<number>(n);
  const cmp = ascend
    ? (i: number, j: number) => ascending(vals[i] as number, vals[j] as number)
    : (i: number, j: number) => ascending(vals[j] as number, vals[i] as number);
  for (let o = 0; o < outer; o++) {
    for (let kk = 0; kk < inner; kk++) {
      const base = o * n * inner + kk;
      for (let j = 0; j < n; j++) {
        vals[j] = v[base + j * inner] as number | bigint;
        idx[j] = j;
      }
      idx.sort(cmp);
      const obase = o * k * inner + kk;
      for (let j = 0; j < k; j++) {
        const src = idx[j] as number;
        if (putValue) putValue(obase + j * inner, vals[src] as number | bigint);
        if (putIndex) putIndex(obase + j * inner, src);
        if (putMask) putMask(base + src * inner, 1);
      }
    }
  }
}

export function installOrdering(registry: OpRegistry, rt: CpuWasmRuntime): void {
  registry.registerKernel<TopKAttrs>('topk', 'cpu-wasm', {
    compute(attrs, _ctx, inputs, req, outputs) {
      const w: Writes =
        attrs.ret_typ === 'value' || attrs.ret_typ === 'both'
          ? { values: 0, indices: 1 }
          : attrs.ret_typ === 'indices'
            ? { indices: 0 }
            : { mask: 0 };
      topkCompute(rt, 'topk', attrs.axis, attrs.k, attrs.is_ascend, w, inputs, req, outputs);
    },
  });
  registry.registerKernel<TopKAttrs>('sort', 'cpu-wasm', {
    compute(attrs, _ctx, inputs, req, outputs) {
      const w: Writes = outputs.length > 1 ? { values: 0, indices: 1 } : { values: 0 };
      topkCompute(rt, 'sort', attrs.axis, 0, attrs.is_ascend, w, inputs, req, outputs);
    },
  });
  registry.registerKernel<TopKAttrs>('argsort', 'cpu-wasm', {
    compute(attrs, _ctx, inputs, req, outputs) {
      topkCompute(rt, 'argsort', attrs.axis, 0, attrs.is_ascend, { indices: 0 }, inputs, req, outputs);
    },
  });
}
