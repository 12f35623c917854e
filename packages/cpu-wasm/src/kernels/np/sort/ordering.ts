/**
 * The radix fast path of `sort` and `argsort` on cpu-wasm (np.sort/np.argsort run those ops, which
 * MXNet 2.0 aliases `_npi_sort`/`_npi_argsort`). The kernels the reduce family installed stay the
 * general path: this installer wraps them, and a call takes the wasm radix sort (radix.ts) when the
 * lanes are contiguous (the last axis, or the flattened array), the values float32/int32/
 * float64/int64, the outputs written (not accumulated) and lanes long enough for a histogram pass
 * to pay. The order is the general path's: ascending with NaN last, stable ties, and descending
 * as the exact reverse ranking with ties in input order.
 */
import type { Attrs, Kernel, OpRegistry, OpReqType, TBlob } from '@mx/ops';
import { OpReq } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { radixServes, radixSort } from './radix.js';

const BACKEND = 'cpu-wasm';
/** Lanes shorter than this keep the comparison sort (a radix pass costs 256-entry histograms). */
export const RADIX_MIN_LANE = 64;

type Blob = TBlob<number>;

interface SortAttrs extends Attrs {
  readonly axis: number | null;
  readonly is_ascend: boolean;
  readonly dtype?: string;
}

/** (lanes, n) when `axis` makes the lanes contiguous, else null. */
function contiguousLanes(shape: readonly number[], axis: number | null): [number, number] | null {
  const size = shape.reduce((p, d) => p * d, 1);
  if (axis === null || shape.length === 0) return [1, size];
  const a = axis < 0 ? axis + shape.length : axis;
  if (a !== shape.length - 1) return null;
  const n = shape[a] as number;
  return [n === 0 ? 0 : size / n, n];
}

const writes = (r: OpReqType | undefined) => r === OpReq.write || r === OpReq.inplace;

function wrap(
  registry: OpRegistry,
  name: 'sort' | 'argsort',
  fast: (attrs: SortAttrs, x: Blob, req: readonly OpReqType[], outs: readonly Blob[]) => boolean,
): void {
  const prev = registry.find(name)?.kernels.get(BACKEND) as Kernel<SortAttrs> | undefined;
  if (prev?.compute === undefined) return;
  const general = prev.compute;
  registry.registerKernel<SortAttrs>(name, BACKEND, {
    ...prev,
    compute(attrs, ctx, inputs, req, outputs) {
      const x = inputs[0] as Blob;
      if (!fast(attrs, x, req, outputs as readonly Blob[])) general(attrs, ctx, inputs, req, outputs);
    },
  });
}

/** Install the radix paths over the general sort/argsort kernels (call after the reduce family). */
export function installRadixOrdering(registry: OpRegistry, rt: CpuWasmRuntime): void {
  wrap(registry, 'sort', (attrs, x, req, outs) => {
    const g = contiguousLanes(x.shape, attrs.axis);
    const idx = outs.length > 1 && req[1] !== OpReq.null ? (outs[1] as Blob) : undefined;
    if (g === null || g[1] < RADIX_MIN_LANE || !radixServes(x.dtype, idx?.dtype) || !writes(req[0]))
      return false;
    if (idx !== undefined && !writes(req[1])) return false;
    radixSort(rt, 'sort', {
      x,
      lanes: g[0],
      n: g[1],
      descending: !attrs.is_ascend,
      values: outs[0] as Blob,
      ...(idx === undefined ? {} : { indices: idx }),
      canonicalZero: idx !== undefined,
    });
    return true;
  });
  wrap(registry, 'argsort', (attrs, x, req, outs) => {
    const g = contiguousLanes(x.shape, attrs.axis);
    const out = outs[0] as Blob;
    if (g === null || g[1] < RADIX_MIN_LANE || !radixServes(x.dtype, out.dtype) || !writes(req[0]))
      return false;
    radixSort(rt, 'argsort', {
      x,
      lanes: g[0],
      n: g[1],
      descending: !attrs.is_ascend,
      indices: out,
      canonicalZero: true,
    });
    return true;
  });
}
