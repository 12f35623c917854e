/**
 * Sequences on cuda-native: `_arange` and `_linspace`, through the shared generator (generate.ts).
 *
 * Arithmetic follows MXNet's kernels as cpu-wasm does (see its range.ts), bit for bit: products
 * and sums use the `__*_rn` intrinsics so the compiler cannot fuse them into an FMA (one rounding
 * where cpu-wasm rounds twice).
 * - `_arange`: start and step are cast to the output dtype first (ints truncate); element i is
 *   `start + floor(i / repeat) * step`. float32 rounds the product (formed in double, as cpu-wasm's
 *   Math.fround(q * d)) and then the sum; integers wrap as the typed arrays do.
 * - `_linspace`: `start + step * i` in double with step from the host, then cast; integer dtypes
 *   take the floor first (NaN and ±inf give 0).
 * float16/bfloat16 compute as float32 and round on the store (cpu-wasm does not produce them).
 */
import type { DTypeName } from '@mx/base';
import { MXNetError } from '@mx/base';
import { type OpRegistry, OpReq, type OpReqType } from '@mx/ops';
import { ctype } from '../../cuda-c.js';
import { CUDA, type CudaBlob, type CudaHost, cudaKernel } from '../../kernel.js';
import type { CudaRuntime } from '../../runtime.js';
import { checkDtype, computeC, type GenParam, generate } from './generate.js';

export const SEQ_DTYPES: readonly DTypeName[] = [
  'float32',
  'float64',
  'float16',
  'bfloat16',
  'int32',
  'int64',
  'int8',
  'uint8',
];

type ArangeAttrs = {
  readonly start: number;
  readonly stop: number | null;
  readonly step: number;
  readonly repeat: number;
  readonly infer_range: boolean;
};
type LinspaceAttrs = {
  readonly start: number;
  readonly stop: number;
  readonly num: number;
  readonly endpoint: boolean;
};

const truncInt = (v: number): number => (Number.isFinite(v) ? Math.trunc(v) : 0);

function arange(rt: CudaRuntime, a: ArangeAttrs, out: CudaBlob, req: OpReqType): void {
  checkDtype('_arange', out.dtype, SEQ_DTYPES, rt.device);
  if (req === OpReq.null || out.size === 0) return;
  if (!(a.repeat > 0)) {
    throw new MXNetError(`Range only supports repeat > 0, received ${a.repeat}`, {
      op: '_arange',
      params: { repeat: a.repeat },
      device: `gpu(${rt.device})`,
      hint: 'pass repeat >= 1',
    });
  }
  // MXNet RangeParamParser: arange(n) means start=0 (stop=n) unless the range is inferred.
  const start = a.stop === null && !a.infer_range ? 0 : a.start;
  const kind = ctype(out.dtype, '_arange').kind;
  const rep: GenParam = { decl: 'long long rep', arg: { t: 'i64', v: Math.trunc(a.repeat) } };
  let params: GenParam[];
  let value: (e: string) => string;
  if (kind === 'f32') {
    params = [
      { decl: 'float s', arg: { t: 'f32', v: Math.fround(start) } },
      { decl: 'float d', arg: { t: 'f32', v: Math.fround(a.step) } },
      rep,
    ];
    value = (e) => `__fadd_rn(s, (float)__dmul_rn((double)(${e} / rep), (double)d))`;
  } else if (kind === 'f64') {
    params = [
      { decl: 'double s', arg: { t: 'f64', v: start } },
      { decl: 'double d', arg: { t: 'f64', v: a.step } },
      rep,
    ];
    value = (e) => `__dadd_rn(s, __dmul_rn((double)(${e} / rep), d))`;
  } else {
    const C = computeC(out.dtype, '_arange');
    params = [
      { decl: 'long long s', arg: { t: 'i64', v: truncInt(start) } },
      { decl: 'long long d', arg: { t: 'i64', v: truncInt(a.step) } },
      rep,
    ];
    // Unsigned arithmetic wraps as the typed arrays do (signed overflow is undefined in C++).
    value = (e) =>
      `(${C})(long long)((unsigned long long)s + (unsigned long long)(${e} / rep) * (unsigned long long)d)`;
  }
  generate(rt, '_arange', out, req, 'arange', value, params);
}

function linspace(rt: CudaRuntime, a: LinspaceAttrs, out: CudaBlob, req: OpReqType): void {
  checkDtype('_linspace', out.dtype, SEQ_DTYPES, rt.device);
  if (req === OpReq.null || out.size === 0) return;
  const stepNum = a.endpoint ? a.num - 1 : a.num;
  const step = stepNum > 0 ? (a.stop - a.start) / stepNum : 0;
  const kind = ctype(out.dtype, '_linspace').kind;
  const C = computeC(out.dtype, '_linspace');
  const x = (e: string) => `__dadd_rn(start, __dmul_rn(step, (double)${e}))`;
  let value: (e: string) => string;
  if (kind === 'f32') value = (e) => `(float)${x(e)}`;
  else if (kind === 'f64') value = x;
  else {
    // floor, then 0 for NaN and ±inf (the typed arrays' ToInt32); the compiler shares the floor.
    const f = (e: string) => `floor(${x(e)})`;
    value = (e) => `(fabs(${f(e)}) <= 1.7976931348623157e308 ? (${C})(long long)${f(e)} : (${C})0)`;
  }
  generate(rt, '_linspace', out, req, 'linspace', value, [
    { decl: 'double start', arg: { t: 'f64', v: a.start } },
    { decl: 'double step', arg: { t: 'f64', v: step } },
  ]);
}

export function installRange(registry: OpRegistry, host: CudaHost): void {
  if (registry.has('_arange')) {
    registry.registerKernel(
      '_arange',
      CUDA,
      cudaKernel<ArangeAttrs>(
        host,
        '_arange',
        (a, _i, req, out) => arange(host.rt, a, out[0] as CudaBlob, req[0] as OpReqType),
        SEQ_DTYPES,
      ),
    );
  }
  if (registry.has('_linspace')) {
    registry.registerKernel(
      '_linspace',
      CUDA,
      cudaKernel<LinspaceAttrs>(
        host,
        '_linspace',
        (a, _i, req, out) => linspace(host.rt, a, out[0] as CudaBlob, req[0] as OpReqType),
        SEQ_DTYPES,
      ),
    );
  }
}
