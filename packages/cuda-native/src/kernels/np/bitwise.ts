/**
 * The integer-only np ops (bitwise and/or/xor/not, shifts, gcd, lcm, with their scalar forms): the
 * expression language has no bitwise functions, so these are kernels of their own, as on cpu-wasm
 * (np/elementwise/integer.ts). Operands are read in their own dtype (broadcast by strides), widened
 * to 64-bit, combined there, and wrapped to the output dtype by the store (C's narrowing, i.e.
 * modulo the width, as BigInt.asIntN/asUintN; bool: nonzero). Shifts by the output width or more
 * give 0 (left, right of non-negatives) or -1 (right of negatives), as NumPy.
 */
import { type DTypeName, MXNetError } from '@mx/base';
import type { Attrs, OpRegistry } from '@mx/ops';
import { ctype, loadC } from '../../cuda-c.js';
import { CUDA, type CudaHost, cudaKernel } from '../../kernel.js';
import {
  checkRank,
  DEVICE,
  dims,
  i32,
  i64,
  isAdd,
  launch1d,
  ptr,
  skip,
  source,
  st,
  storeC,
} from './common.js';

/** Integer dtypes (and bool) cuda-native stores. */
export const INTEGER_DTYPES: readonly DTypeName[] = ['int32', 'int64', 'int8', 'uint8', 'bool'];

/** C of each function of (a, b) as long long with the output width `bits`. */
const FNS: Readonly<Record<string, string>> = {
  bitwise_and: 'a & b',
  bitwise_or: 'a | b',
  bitwise_xor: 'a ^ b',
  bitwise_left_shift: '(b < 0 || b >= bits) ? 0LL : (long long)((unsigned long long)a << b)',
  bitwise_right_shift: '(b < 0 || b >= bits) ? (a < 0 ? -1LL : 0LL) : (a >> b)',
  gcd: 'mx_gcd(a, b)',
  lcm: '(a == 0 || b == 0) ? 0LL : (long long)(((unsigned long long)mx_abs(a) / (unsigned long long)mx_gcd(a, b)) * (unsigned long long)mx_abs(b))',
};

const HELPERS = `static __device__ __forceinline__ long long mx_abs(long long v) { return v < 0 ? -v : v; }
static __device__ long long mx_gcd(long long a, long long b) {
  unsigned long long x = (unsigned long long)mx_abs(a), y = (unsigned long long)mx_abs(b);
  while (y != 0) { unsigned long long t = x % y; x = y; y = t; }
  return (long long)x;
}
`;

type Form = 'array' | 'scalar' | 'rscalar';

function binarySource(
  op: string,
  stem: string,
  form: Form,
  ta: DTypeName,
  tb: DTypeName,
  out: DTypeName,
  add: boolean,
) {
  return source(op, `${form}|${ta}|${tb}|${out}|${add}`, (entry) => {
    const bits = out === 'bool' ? 1 : ctype(out, op).bytes * 8;
    const load = (name: string, t: DTypeName, idx: string) => `(long long)(${loadC(name, t, idx)})`;
    const operands =
      form === 'array'
        ? `long long r = o, ia = 0, ib = 0;
    for (int d = nd - 1; d >= 0; d--) { long long c = r % oshape.v[d]; r /= oshape.v[d]; ia += c * sa.v[d]; ib += c * sb.v[d]; }
    long long a = ${load('x', ta, 'ia')};
    long long b = ${load('y', tb, 'ib')};`
        : form === 'scalar'
          ? `long long a = ${load('x', ta, 'o')}; long long b = s;`
          : `long long a = s; long long b = ${load('x', ta, 'o')};`;
    const args =
      form === 'array'
        ? `const ${st(ta, op)}* x, const ${st(tb, op)}* y, ${st(out, op)}* out, long long n, int nd, MxDims oshape, MxDims sa, MxDims sb`
        : `const ${st(ta, op)}* x, ${st(out, op)}* out, long long n, long long s`;
    const v = out === 'bool' ? '(v != 0)' : `(${st(out, op)})v`;
    return `${HELPERS}extern "C" __global__ void ${entry}(${args}) {
  const long long bits = ${bits};
  MX_GRID_LOOP(o, n) {
    ${operands}
    long long v = ${FNS[stem]};
    (void)bits;
    ${storeC(out, 'out', 'o', v, add)}
  }
}
`;
  });
}

function notSource(ta: DTypeName, out: DTypeName, add: boolean) {
  const op = '_npi_bitwise_not';
  return source(op, `${ta}|${out}|${add}`, (entry) => {
    const v =
      out === 'bool' ? `!${loadC('x', ta, 'i')}` : `(${st(out, op)})(~(long long)(${loadC('x', ta, 'i')}))`;
    return `extern "C" __global__ void ${entry}(const ${st(ta, op)}* x, ${st(out, op)}* out, long long n) {
  MX_GRID_LOOP(i, n) { ${storeC(out, 'out', 'i', v, add)} }
}
`;
  });
}

/** Broadcast strides of `shape` against `out` (0 along broadcast axes). */
export function broadcastStrides(shape: readonly number[], out: readonly number[]): number[] {
  const pad = out.length - shape.length;
  const strides = new Array<number>(out.length).fill(0);
  let s = 1;
  for (let d = out.length - 1; d >= pad; d--) {
    const dim = shape[d - pad] as number;
    strides[d] = dim === 1 ? 0 : s;
    s *= dim;
  }
  return strides;
}

function scalarOf(op: string, attrs: Attrs): number {
  const s = attrs.scalar;
  if (typeof s !== 'number' || !Number.isFinite(s)) {
    throw new MXNetError(`scalar ${String(s)} is not an integer`, {
      op,
      params: attrs,
      device: DEVICE,
      hint: 'pass an integer scalar',
    });
  }
  return Math.trunc(s);
}

export function installNpBitwise(registry: OpRegistry, host: CudaHost): void {
  for (const stem of Object.keys(FNS)) {
    const name = `_npi_${stem}`;
    const forms: [string, Form][] = [
      [name, 'array'],
      [`${name}_scalar`, 'scalar'],
      [`_npi_r${stem}_scalar`, 'rscalar'],
    ];
    for (const [op, form] of forms) {
      if (!registry.has(op)) continue;
      registry.registerKernel(
        op,
        CUDA,
        cudaKernel(
          host,
          op,
          (attrs, inputs, req, [out]) => {
            const x = inputs[0];
            if (x === undefined || out === undefined || skip(req[0]) || out.size === 0) return;
            const add = isAdd(req[0]);
            if (form === 'array') {
              const y = inputs[1];
              if (y === undefined) return;
              checkRank(op, [x.shape, y.shape, out.shape], out.shape.length);
              const src = binarySource(op, stem, form, x.dtype, y.dtype, out.dtype, add);
              launch1d(host.rt, src, out.size, [
                ptr(x, op),
                ptr(y, op),
                ptr(out, op),
                i64(out.size),
                i32(out.shape.length),
                dims(out.shape),
                dims(broadcastStrides(x.shape, out.shape)),
                dims(broadcastStrides(y.shape, out.shape)),
              ]);
              return;
            }
            const src = binarySource(op, stem, form, x.dtype, x.dtype, out.dtype, add);
            launch1d(host.rt, src, out.size, [
              ptr(x, op),
              ptr(out, op),
              i64(out.size),
              i64(scalarOf(op, attrs)),
            ]);
          },
          INTEGER_DTYPES,
        ),
      );
    }
  }
  const op = '_npi_bitwise_not';
  if (registry.has(op)) {
    registry.registerKernel(
      op,
      CUDA,
      cudaKernel(
        host,
        op,
        (_a, [x], req, [out]) => {
          if (x === undefined || out === undefined || skip(req[0]) || out.size === 0) return;
          launch1d(host.rt, notSource(x.dtype, out.dtype, isAdd(req[0])), out.size, [
            ptr(x, op),
            ptr(out, op),
            i64(out.size),
          ]);
        },
        INTEGER_DTYPES,
      ),
    );
  }
}
