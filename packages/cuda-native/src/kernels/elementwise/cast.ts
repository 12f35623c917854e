/**
 * `Cast` (alias `cast`) on cuda-native, between all 13 dtypes, with cpu-wasm's semantics (NumPy's
 * astype for in-range values): float → integer truncates and, out of range, wraps modulo 2^bits
 * with NaN/inf → 0 (JS typed-array conversion, which C leaves undefined); integer → integer wraps;
 * anything → bool is `!= 0`; to float16/bfloat16 rounds to nearest even. 64-bit integers travel as
 * 64-bit integers (never through a double). An in-place cast between widths reads a copy first.
 */
import { DType, type DTypeName, MXNetError } from '@mx/base';
import { type Kernel, OpReq } from '@mx/ops';
import { BLOCK, blocksFor, type CudaSource, hashText } from '../../cuda-c.js';
import { addr, type CudaHost, cudaKernel } from '../../kernel.js';

const STORAGE: Readonly<Record<DTypeName, string>> = {
  float32: 'float',
  float64: 'double',
  float16: 'unsigned short',
  bfloat16: 'unsigned short',
  int8: 'signed char',
  uint8: 'unsigned char',
  int16: 'short',
  uint16: 'unsigned short',
  int32: 'int',
  uint32: 'unsigned',
  int64: 'long long',
  uint64: 'unsigned long long',
  bool: 'unsigned char',
};

const FLOATS: ReadonlySet<DTypeName> = new Set<DTypeName>(['float32', 'float64', 'float16', 'bfloat16']);

/** C reading element i of `in` as a double (floats) or an unsigned long long (integers, two's complement). */
function readC(d: DTypeName): string {
  if (d === 'float16') return '(double)mx_h2f(in[i])';
  if (d === 'bfloat16') return '(double)mx_bf2f(in[i])';
  if (FLOATS.has(d)) return '(double)in[i]';
  if (d === 'bool') return '(unsigned long long)(in[i] != 0)';
  return '(unsigned long long)(long long)in[i]';
}

const SIGNED: ReadonlySet<DTypeName> = new Set<DTypeName>(['int8', 'int16', 'int32', 'int64']);

/** C converting `v` (double for float sources, unsigned long long for integers) to `to`'s storage. */
function writeC(from: DTypeName, to: DTypeName, v: string): string {
  const fromFloat = FLOATS.has(from);
  if (to === 'bool') return `(unsigned char)(${v} != 0)`;
  if (FLOATS.has(to)) {
    const num = fromFloat ? v : SIGNED.has(from) ? `(double)(long long)${v}` : `(double)${v}`;
    if (to === 'float16') return `mx_f2h((float)${num})`;
    if (to === 'bfloat16') return `mx_f2bf((float)${num})`;
    if (to === 'float32' && !fromFloat) {
      return SIGNED.has(from) ? `(float)(long long)${v}` : `(float)${v}`;
    }
    return `(${STORAGE[to]})${num}`;
  }
  const bits = fromFloat ? `mx_wrap64(${v})` : v;
  return `(${STORAGE[to]})${bits}`;
}

const WRAP = `static __device__ __forceinline__ unsigned long long mx_wrap64(double x) {
  if (!isfinite(x)) return 0ull;
  double t = trunc(x);
  if (t >= -9223372036854775808.0 && t < 9223372036854775808.0) return (unsigned long long)(long long)t;
  t = fmod(t, 18446744073709551616.0);
  if (t < 0) t += 18446744073709551616.0;
  return t >= 9223372036854775808.0 ? (unsigned long long)(t - 9223372036854775808.0) + 9223372036854775808ull
                                     : (unsigned long long)t;
}
`;

function addC(to: DTypeName, a: string, b: string): string {
  if (to === 'float16') return `mx_f2h(mx_h2f(${a}) + mx_h2f(${b}))`;
  if (to === 'bfloat16') return `mx_f2bf(mx_bf2f(${a}) + mx_bf2f(${b}))`;
  if (to === 'bool') return `(unsigned char)((${a} != 0) || (${b} != 0))`;
  if (FLOATS.has(to)) return `${a} + ${b}`;
  return `(${STORAGE[to]})((unsigned long long)${a} + (unsigned long long)${b})`;
}

export function castSource(from: DTypeName, to: DTypeName, add: boolean): CudaSource {
  const entry = `mx_cast_${from}_${to}${add ? '_add' : ''}_${hashText(`${from}>${to}|${add}`)}`;
  const value = writeC(from, to, readC(from));
  const store = add ? `out[i] = ${addC(to, 'out[i]', `(${STORAGE[to]})(${value})`)};` : `out[i] = ${value};`;
  const code = `${WRAP}extern "C" __global__ void ${entry}(${STORAGE[to]}* out, const ${STORAGE[from]}* in, long long n) {
  MX_GRID_LOOP(i, n) { ${store} }
}
`;
  return { entry, code };
}

export function castKernel(host: CudaHost, name = 'Cast'): Kernel {
  const cache = new Map<string, CudaSource>();
  return cudaKernel(
    host,
    name,
    (_attrs, inputs, req, outputs) => {
      const r = req[0];
      const src = inputs[0];
      const dst = outputs[0];
      if (src === undefined || dst === undefined) {
        throw new MXNetError('Cast needs one input and one output', { op: name, device: 'gpu' });
      }
      if (r === undefined || r === OpReq.null || dst.size === 0) return;
      if (src.size !== dst.size) {
        throw new MXNetError(`input has ${src.size} elements but the output ${dst.size}`, {
          op: name,
          shapes: [src.shape, dst.shape],
          device: 'gpu',
        });
      }
      const rt = host.rt;
      const add = r === OpReq.add;
      const sBytes = src.size * DType[src.dtype].bytes;
      const dBytes = dst.size * DType[dst.dtype].bytes;
      let sa = addr(src, name);
      const da = addr(dst, name);
      if (!add && src.dtype === dst.dtype) {
        if (sa !== da) rt.copy(da, sa, sBytes);
        return;
      }
      if (sa < da + dBytes && da < sa + sBytes && !(sa === da && sBytes === dBytes)) {
        const tmp = rt.temp(sBytes);
        rt.copy(tmp, sa, sBytes);
        sa = tmp;
      }
      const key = `${src.dtype}>${dst.dtype}|${add}`;
      let source = cache.get(key);
      if (source === undefined) {
        source = castSource(src.dtype, dst.dtype, add);
        cache.set(key, source);
      }
      rt.launch(
        source,
        [blocksFor(dst.size)],
        [BLOCK],
        [
          { t: 'ptr', v: da },
          { t: 'ptr', v: sa },
          { t: 'i64', v: dst.size },
        ],
      );
    },
    Object.keys(DType) as DTypeName[],
  );
}
