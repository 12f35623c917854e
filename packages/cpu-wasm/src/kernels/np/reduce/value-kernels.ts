/**
 * cpu-wasm kernels of MXNet 2.0's np value reductions (`_npi_sum`, `_npi_prod`, `_npi_mean`,
 * `_npi_max`, `_npi_min`) and of `_npi_all` / `_npi_any`. The value reductions run the legacy
 * reduce driver (`reduceInto`: wasm SIMD for floats, worker pool for large calls); what they add is
 * MXNet 2.0's `dtype` (the input is first converted to the result dtype, so the accumulation is in
 * it, as MXNet's) and `initial` (combined with each result). Bool inputs are converted the same way.
 * all/any are one TypeScript pass over the lanes (NaN counts as true, as in NumPy).
 */
import { type DTypeName, MXNetError } from '@mx/base';
import { type Attrs, type OpRegistry, OpReq, type OpReqType } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { converterTo, REDUCE_DTYPES, storerFor } from '../../reduce/convert.js';
import { reduceInto } from '../../reduce/value-kernels.js';
import type { WasmReduceOp } from '../../reduce/wasm-loops.js';
import { type Blob, lanesOf, NP_REDUCE_TS_DTYPES, readF64, unsupported } from './io.js';

interface NpAxesAttrs extends Attrs {
  readonly axis: readonly number[] | null;
  readonly keepdims: boolean;
  readonly initial?: number | null;
}

const OPS: readonly (readonly [string, WasmReduceOp, 'none' | 'mean'])[] = [
  ['_npi_sum', 'sum', 'none'],
  ['_npi_prod', 'prod', 'none'],
  ['_npi_mean', 'sum', 'mean'],
  ['_npi_max', 'max', 'none'],
  ['_npi_min', 'min', 'none'],
];

/** Flags of the reduced axes (NumPy: null = all, [] = none). */
function flagsOf(ndim: number, axis: readonly number[] | null): boolean[] {
  const set = new Set(axis?.map((a) => (a < 0 ? a + ndim : a)));
  return Array.from({ length: ndim }, (_, i) => axis === null || set.has(i));
}

/** Scratch blob of `dtype` and `shape` in the wasm memory; `free` releases it. */
function scratch(rt: CpuWasmRuntime, op: string, dtype: DTypeName, shape: readonly number[]) {
  const size = shape.reduce((p, d) => p * d, 1);
  const bytes = Math.max(1, size * rt.itemSize(dtype));
  const addr = rt.memory.allocator.alloc(bytes);
  if (addr === null)
    throw new MXNetError(`out of memory for a ${bytes}-byte scratch block`, { op, device: 'cpu-wasm' });
  const blob: Blob = { ptr: addr, byteOffset: 0, shape, dtype, size };
  return { blob, free: () => rt.memory.allocator.free(addr, bytes) };
}

/** `x` converted to `dtype` in a scratch blob. */
function convertInto(rt: CpuWasmRuntime, op: string, x: Blob, dtype: DTypeName) {
  const s = scratch(rt, op, dtype, x.shape);
  const src = rt.view(x) as unknown as ArrayLike<number | bigint>;
  const dst = rt.view(s.blob) as unknown as (number | bigint)[];
  const conv = converterTo(dtype, op);
  for (let i = 0; i < x.size; i++) dst[i] = conv(src[i] as number | bigint);
  return s;
}

export function installNpValueReduces(registry: OpRegistry, rt: CpuWasmRuntime): void {
  for (const [name, op, finish] of OPS) {
    registry.registerKernel<NpAxesAttrs>(name, 'cpu-wasm', {
      dtypes: [...REDUCE_DTYPES, 'bool'],
      compute(attrs, _ctx, inputs, req, outputs) {
        const x0 = inputs[0] as Blob;
        const y = outputs[0] as Blob;
        const r = req[0] as OpReqType;
        if (r === OpReq.null || y.size === 0) return;
        if (!REDUCE_DTYPES.includes(y.dtype) && y.dtype !== 'bool') throw unsupported(name, y.dtype);
        const acc: DTypeName = REDUCE_DTYPES.includes(y.dtype) ? y.dtype : 'int64';
        const conv = x0.dtype === acc ? null : convertInto(rt, name, x0, acc);
        const x = conv?.blob ?? x0;
        const flags = flagsOf(x.shape.length, attrs.axis);
        const initial = attrs.initial ?? null;
        try {
          if (initial === null || finish === 'mean') {
            reduceInto(rt, name, op, finish, x, y, flags, r);
            return;
          }
          const t = scratch(rt, name, acc, y.shape);
          try {
            reduceInto(rt, name, op, 'none', x, t.blob, flags, OpReq.write);
            const tv = rt.view(t.blob) as unknown as ArrayLike<number | bigint>;
            const store = storerFor(rt.view(y), y.dtype, r, name);
            const big = acc === 'int64';
            const init = big ? BigInt(Math.trunc(initial)) : initial;
            for (let i = 0; i < y.size; i++) {
              const v = tv[i] as number & bigint;
              const i0 = init as number & bigint;
              if (op === 'sum') store(i, v + i0);
              else if (op === 'prod') store(i, v * i0);
              else if (op === 'max') store(i, v > i0 || Number.isNaN(v) ? v : i0);
              else store(i, v < i0 || Number.isNaN(v) ? v : i0);
            }
          } finally {
            t.free();
          }
        } finally {
          conv?.free();
        }
      },
    });
  }

  for (const [name, all] of [
    ['_npi_all', true],
    ['_npi_any', false],
  ] as const) {
    registry.registerKernel<NpAxesAttrs>(name, 'cpu-wasm', {
      dtypes: NP_REDUCE_TS_DTYPES,
      compute(attrs, _ctx, inputs, req, outputs) {
        const x = inputs[0] as Blob;
        const y = outputs[0] as Blob;
        const r = req[0] as OpReqType;
        if (r === OpReq.null || y.size === 0) return;
        const v = readF64(rt, x);
        const { kept, lane } = lanesOf(x.shape, attrs.axis);
        const store = storerFor(rt.view(y), y.dtype, r, name);
        for (let o = 0; o < kept.length; o++) {
          const base = kept[o] as number;
          let res = all;
          for (let k = 0; k < lane.length; k++) {
            const t = (v[base + (lane[k] as number)] as number) !== 0;
            if (t !== all) {
              res = !all;
              break;
            }
          }
          store(o, res ? 1 : 0);
        }
      },
    });
  }
}
