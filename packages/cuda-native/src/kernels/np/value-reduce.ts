/**
 * MXNet 2.0's `_npi_sum`, `_npi_prod` and `_npi_mean` on cuda-native, over the reduce family's
 * engine (`reduceInto`), as cpu-wasm's np/reduce/value-kernels.ts: the input is first converted to
 * the result dtype in scratch (so the accumulation is in it, as MXNet's: int32 with dtype=float64
 * sums in float64, bool sums as int64), and `initial` is combined with each result (sum, prod; mean
 * ignores it, as cpu-wasm). Registered here because the ops' composite over the legacy `sum` /
 * `prod` / `mean` kernels refuses a dtype change and `initial`. A bool result (dtype=bool) is
 * reduced in int64 and converted.
 */
import type { DTypeName } from '@mx/base';
import { type Attrs, type OpRegistry, OpReq, type OpReqType } from '@mx/ops';
import { BLOCK, blocksFor, ctype, loadC } from '../../cuda-c.js';
import { CUDA, type CudaBlob, type CudaHost, cudaKernel } from '../../kernel.js';
import { castSource } from '../elementwise/cast.js';
import { REDUCE_DTYPES, unsupported } from '../reduce/geometry.js';
import { type Finish, type RedOp, reduceInto } from '../reduce/reduce-engine.js';
import { castFromDouble, f64, i64, isAdd, kc, launch1d, ptr, skip, source, st, storeC } from './common.js';

interface NpAxesAttrs extends Attrs {
  readonly axis: readonly number[] | null;
  readonly keepdims: boolean;
  readonly initial?: number | null;
}

const OPS: readonly (readonly [string, RedOp, Finish])[] = [
  ['_npi_sum', 'sum', 'none'],
  ['_npi_prod', 'prod', 'none'],
  ['_npi_mean', 'sum', 'mean'],
];

/** NumPy's reduced axes: null = all, [] = none. */
export function npReducedFlags(ndim: number, axis: readonly number[] | null): boolean[] {
  const set = new Set(axis?.map((a) => (a < 0 ? a + ndim : a)));
  return Array.from({ length: ndim }, (_, i) => axis === null || set.has(i));
}

/** y = t ⊕ initial (t in the accumulator dtype), stored in y's dtype honouring req add. */
function combineSource(acc: DTypeName, out: DTypeName, prod: boolean, add: boolean) {
  const op = '_npi_reduce_initial';
  return source(op, `${acc}|${out}|${prod}|${add}`, (entry) => {
    const k = ctype(acc, op).kind;
    const float = k === 'f32' || k === 'f64';
    const [castDef, cast] = castFromDouble(out, op);
    const o = prod ? '*' : '+';
    const value = float
      ? `${cast}((double)${loadC('t', acc, 'i')} ${o} init)`
      : `(${kc(out, op)})(long long)((unsigned long long)(long long)${loadC('t', acc, 'i')} ${o} (unsigned long long)(long long)trunc(init))`;
    return `${castDef}extern "C" __global__ void ${entry}(const ${st(acc, op)}* t, ${st(out, op)}* y, long long n, double init) {
  MX_GRID_LOOP(i, n) { ${storeC(out, 'y', 'i', value, add)} }
}
`;
  });
}

/** `x` converted to `dtype` in per-op scratch (x itself when it already has it). */
function convertTo(rt: CudaHost['rt'], op: string, x: CudaBlob, dtype: DTypeName): CudaBlob {
  if (x.dtype === dtype || x.size === 0) return { ...x, dtype };
  const t = rt.temp(x.size * ctype(dtype, op).bytes);
  rt.launch(
    castSource(x.dtype, dtype, false),
    [blocksFor(x.size)],
    [BLOCK],
    [{ t: 'ptr', v: t }, ptr(x, op), i64(x.size)],
  );
  return { ptr: t, byteOffset: 0, shape: x.shape, dtype, size: x.size };
}

export function installNpValueReduce(registry: OpRegistry, host: CudaHost): void {
  for (const [name, op, finish] of OPS) {
    if (!registry.has(name)) continue;
    registry.registerKernel(
      name,
      CUDA,
      cudaKernel<NpAxesAttrs>(
        host,
        name,
        (attrs, inputs, req, outputs) => {
          const x0 = inputs[0] as CudaBlob;
          const y = outputs[0] as CudaBlob;
          const r = req[0] as OpReqType;
          if (skip(r) || y.size === 0) return;
          for (const d of [x0.dtype, y.dtype])
            if (!REDUCE_DTYPES.includes(d) && d !== 'bool') throw unsupported(name, d, REDUCE_DTYPES);
          const rt = host.rt;
          const acc: DTypeName = REDUCE_DTYPES.includes(y.dtype) ? y.dtype : 'int64';
          const x = convertTo(rt, name, x0, acc);
          const flags = npReducedFlags(x.shape.length, attrs.axis);
          const initial = finish === 'mean' ? null : (attrs.initial ?? null);
          if (initial === null && acc === y.dtype) {
            reduceInto(rt, name, op, finish, x, x.shape, flags, y, r);
            return;
          }
          const t: CudaBlob = {
            ptr: rt.temp(y.size * ctype(acc, name).bytes),
            byteOffset: 0,
            shape: y.shape,
            dtype: acc,
            size: y.size,
          };
          reduceInto(rt, name, op, finish, x, x.shape, flags, t, OpReq.write);
          launch1d(rt, combineSource(acc, y.dtype, op === 'prod', isAdd(r)), y.size, [
            ptr(t, name),
            ptr(y, name),
            i64(y.size),
            f64(initial ?? (op === 'prod' ? 1 : 0)),
          ]);
        },
        [...REDUCE_DTYPES, 'bool'],
      ),
    );
  }
}
