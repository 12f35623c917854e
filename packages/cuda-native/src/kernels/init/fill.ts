/**
 * Constant fills on cuda-native: `_zeros`, `_ones`, `_full`, `zeros_like`, `ones_like` and `_eye`,
 * all through the shared generator (generate.ts). The fill value travels as a `double` argument and
 * is converted once per thread, so one kernel per (dtype, req) serves every value.
 *
 * Values are cast as C++ `static_cast<DType>(double)` (cpu-wasm's castValue): int64 saturates
 * (NaN gives 0), the narrower ints truncate and wrap (NaN and ±inf give 0), bool is `v != 0`,
 * float32 rounds to nearest, float16/bfloat16 round through float32.
 */
import type { DTypeName } from '@mx/base';
import type { OpRegistry, OpReqType } from '@mx/ops';
import { CUDA_DTYPES, ctype } from '../../cuda-c.js';
import { CUDA, type CudaBlob, type CudaHost, cudaKernel } from '../../kernel.js';
import type { CudaRuntime } from '../../runtime.js';
import { computeC, generate } from './generate.js';

/** Dtypes the fills produce (every dtype cuda-native stores). */
export const FILL_DTYPES: readonly DTypeName[] = CUDA_DTYPES;

/** C expression converting the `double v` parameter to `dtype`'s compute type, as castValue does. */
function castFromDouble(dtype: DTypeName, op: string): string {
  const k = ctype(dtype, op).kind;
  const C = computeC(dtype, op);
  switch (k) {
    case 'f32':
      return '(float)v';
    case 'f64':
      return 'v';
    case 'bool':
      return '(v != 0.0)';
    case 'i64':
      // cvt.rzi.s64.f64 saturates and maps NaN to 0, as static_cast on the host does.
      return '(long long)v';
    default:
      return `(fabs(v) <= 1.7976931348623157e308 ? (${C})(long long)v : (${C})0)`;
  }
}

/** Fill `out` with `value` honouring req (add accumulates; bool add is a logical or). */
export function fillBlob(rt: CudaRuntime, op: string, out: CudaBlob, req: OpReqType, value: number): void {
  const C = computeC(out.dtype, op);
  generate(
    rt,
    op,
    out,
    req,
    'fill',
    () => 'val',
    [{ decl: 'double v', arg: { t: 'f64', v: value } }],
    `  const ${C} val = ${castFromDouble(out.dtype, op)};\n`,
  );
}

/** MXNet `EyeFill`: 1 where col - row == k, else 0 (an (N, M) output). */
function eye(rt: CudaRuntime, out: CudaBlob, req: OpReqType, k: number): void {
  const cols = out.shape[1] ?? 1;
  if (cols === 0) return;
  const C = computeC(out.dtype, '_eye');
  const hit = '((e % cols) - (e / cols) == k)';
  generate(rt, '_eye', out, req, 'eye', () => (out.dtype === 'bool' ? hit : `(${hit} ? (${C})1 : (${C})0)`), [
    { decl: 'long long cols', arg: { t: 'i64', v: cols } },
    { decl: 'long long k', arg: { t: 'i64', v: Math.trunc(k) } },
  ]);
}

export function installFill(registry: OpRegistry, host: CudaHost): void {
  const constant = (name: string, value: number) => {
    if (!registry.has(name)) return;
    registry.registerKernel(
      name,
      CUDA,
      cudaKernel(
        host,
        name,
        (_a, _i, req, out) => fillBlob(host.rt, name, out[0] as CudaBlob, req[0] as OpReqType, value),
        FILL_DTYPES,
      ),
    );
  };
  constant('_zeros', 0);
  constant('_ones', 1);
  constant('zeros_like', 0);
  constant('ones_like', 1);
  if (registry.has('_full')) {
    registry.registerKernel(
      '_full',
      CUDA,
      cudaKernel<{ value: number }>(
        host,
        '_full',
        (a, _i, req, out) => fillBlob(host.rt, '_full', out[0] as CudaBlob, req[0] as OpReqType, a.value),
        FILL_DTYPES,
      ),
    );
  }
  if (registry.has('_eye')) {
    registry.registerKernel(
      '_eye',
      CUDA,
      cudaKernel<{ k: number }>(
        host,
        '_eye',
        (a, _i, req, out) => eye(host.rt, out[0] as CudaBlob, req[0] as OpReqType, a.k),
        FILL_DTYPES,
      ),
    );
  }
}
