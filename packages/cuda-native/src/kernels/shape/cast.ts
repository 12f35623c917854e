/**
 * Elementwise dtype conversion with cpu-wasm's Cast semantics (codegen/cast.ts), used by
 * `_backward_Cast`: float → int truncates toward zero and wraps modulo 2^bits (JS typed-array
 * stores), NaN/inf → 0; anything → bool is `!= 0`; int64 → float32 rounds through float64 as
 * `Number(bigint)` does; req add converts first, then adds in the output dtype's arithmetic (bool
 * as or). One kernel per (from, to, add); a source overlapping the output at a different offset or
 * element size is copied to scratch first.
 */
import type { DTypeName } from '@mx/base';
import { OpReq, type OpReqType } from '@mx/ops';
import {
  BLOCK,
  blocksFor,
  type CudaSource,
  cachedSource,
  ctype,
  KIND_C,
  loadC,
  toStorage,
} from '../../cuda-c.js';
import { addr, type CudaBlob } from '../../kernel.js';
import type { CudaRuntime } from '../../runtime.js';
import { indexType, kernelError } from './common.js';
import { copyDense } from './strided.js';

const HELPERS = `static __device__ __forceinline__ unsigned mx_wrap32(double t) {
  double m = t - floor(t / 4294967296.0) * 4294967296.0;
  return (unsigned)m;
}
static __device__ __forceinline__ long long mx_wrap64(double t) {
  if (t > -9.2e18 && t < 9.2e18) return (long long)t;
  double m = fmod(t, 18446744073709551616.0);
  if (m < 0.0) m += 18446744073709551616.0;
  if (m >= 9223372036854775808.0) m -= 18446744073709551616.0;
  return (long long)m;
}
`;

const isFloat = (d: DTypeName) => ctype(d).kind === 'f32' || ctype(d).kind === 'f64';

/** C expression of the storage value of `to` converted from the compute value `x` of `from`. */
export function convertC(from: DTypeName, to: DTypeName, x: string): string {
  const tk = ctype(to).kind;
  const S = ctype(to).storage;
  if (tk === 'bool') return `(unsigned char)((${x}) != 0)`;
  if (isFloat(to)) {
    const v = ctype(from).kind === 'i64' && tk === 'f32' ? `(double)(${x})` : `(${x})`;
    return toStorage(to, `(${KIND_C[tk]})${v}`);
  }
  if (isFloat(from)) {
    const d = `(double)(${x})`;
    if (tk === 'i64') return `((${d} - ${d} == 0.0) ? mx_wrap64(trunc(${d})) : 0LL)`;
    return `(${S})((${d} - ${d} == 0.0) ? mx_wrap32(trunc(${d})) : 0u)`;
  }
  return `(${S})(${x})`;
}

/** The compute value of a storage scalar `v` of `dtype`. */
function loadScalar(dtype: DTypeName, v: string): string {
  if (dtype === 'float16') return `mx_h2f(${v})`;
  if (dtype === 'bfloat16') return `mx_bf2f(${v})`;
  if (dtype === 'bool') return `(${v} != 0)`;
  return v;
}

function castSource(from: DTypeName, to: DTypeName, add: boolean, I: string): CudaSource {
  const key = `cast:${from}:${to}:${add ? 'add' : 'w'}:${I}`;
  return cachedSource(`shape_cast`, key, (entry) => {
    const SF = ctype(from).storage;
    const ST = ctype(to).storage;
    const store = add
      ? `out[e] = ${toStorage(to, `${loadC('out', to, 'e')} + ${loadScalar(to, 'v')}`)};`
      : 'out[e] = v;';
    const code = `${HELPERS}extern "C" __global__ void ${entry}(${ST}* out, const ${SF}* src, long long n) {
  MX_GRID_LOOP(i, n) {
    ${I} e = (${I})i;
    ${ST} v = ${convertC(from, to, loadC('src', from, 'e'))};
    ${store}
  }
}
`;
    return code;
  });
}

/** out (dtype of out) = cast(src) elementwise, honouring req (write/inplace or add). */
export function castInto(rt: CudaRuntime, op: string, src: CudaBlob, out: CudaBlob, req: OpReqType): void {
  if (req === OpReq.null || out.size === 0) return;
  if (src.size !== out.size) {
    throw kernelError(op, `input has ${src.size} elements but the output ${out.size}`, {
      shapes: [[...src.shape], [...out.shape]],
      hint: 'pass an output of the input shape',
    });
  }
  const fb = ctype(src.dtype, op).bytes;
  const tb = ctype(out.dtype, op).bytes;
  let sp = addr(src, op);
  const dp = addr(out, op);
  if (src.dtype === out.dtype && req !== OpReq.add) {
    copyDense(rt, op, src, out, req);
    return;
  }
  const same = sp === dp && fb === tb;
  if (!same && sp < dp + out.size * tb && dp < sp + src.size * fb) {
    const tmp = rt.temp(src.size * fb);
    rt.copy(tmp, sp, src.size * fb);
    sp = tmp;
  }
  const n = out.size;
  rt.launch(
    castSource(src.dtype, out.dtype, req === OpReq.add, indexType(n)),
    [blocksFor(n)],
    [BLOCK],
    [
      { t: 'ptr', v: dp },
      { t: 'ptr', v: sp },
      { t: 'i64', v: n },
    ],
  );
}
