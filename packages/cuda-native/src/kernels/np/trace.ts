/**
 * `_npi_trace` and `_backward_npi_trace`: a diagonal sum of its own (matmul, dot, tensordot,
 * kron and einsum run through the einsum executor in products/). A
 * thread per output sums its diagonal (offset, axis1, axis2) in double (floats) or 64-bit integers
 * (wrapping on store, as cpu-wasm's typed-array stores); the gradient zeroes (unless req=add) and
 * adds ograd along each diagonal — positions are distinct, so no atomics.
 */
import type { DTypeName } from '@mx/base';
import type { Attrs, OpRegistry } from '@mx/ops';
import { traceDiagonal } from '@mx/ops';
import { CUDA_DTYPES, ctype, loadC } from '../../cuda-c.js';
import { addr, CUDA, type CudaHost, cudaKernel } from '../../kernel.js';
import {
  checkRank,
  denseStrides,
  dims,
  i32,
  i64,
  isAdd,
  kc,
  launch1d,
  ptr,
  skip,
  source,
  st,
  storeC,
} from './common.js';

const TRACE_DTYPES: readonly DTypeName[] = CUDA_DTYPES.filter((d) => d !== 'float16' && d !== 'bfloat16');

/** Geometry of a trace: kept axes' extents and strides, diagonal start, length and step. */
export function traceGeometry(shape: readonly number[], attrs: Attrs) {
  const nd = shape.length;
  const x1 = ((attrs.axis1 as number) + nd) % nd;
  const x2 = ((attrs.axis2 as number) + nd) % nd;
  const strides = denseStrides(shape);
  const keep = shape.map((_, i) => i).filter((i) => i !== x1 && i !== x2);
  const d = traceDiagonal(shape[x1] as number, shape[x2] as number, attrs.offset as number);
  const s1 = strides[x1] as number;
  const s2 = strides[x2] as number;
  return {
    base: d.i0 * s1 + d.j0 * s2,
    len: d.len,
    step: s1 + s2,
    keepShape: keep.map((i) => shape[i] as number),
    keepStride: keep.map((i) => strides[i] as number),
    count: keep.reduce((n, ax) => n * (shape[ax] as number), 1),
  };
}

const OUTER_C = `static __device__ __forceinline__ long long mx_outer(long long o, int nd, const MxDims& shape, const MxDims& stride) {
  long long p = 0;
  for (int d = nd - 1; d >= 0; d--) { p += (o % shape.v[d]) * stride.v[d]; o /= shape.v[d]; }
  return p;
}
`;

function traceSource(dtype: DTypeName, add: boolean) {
  const op = '_npi_trace';
  return source(op, `${dtype}|${add}`, (entry) => {
    const float = dtype === 'float32' || dtype === 'float64';
    const acc = float ? 'double' : 'long long';
    const s = st(dtype, op);
    const store =
      dtype === 'bool'
        ? `y[o] = (unsigned char)(${add ? 'y[o] + ' : ''}sum);`
        : storeC(dtype, 'y', 'o', `(${kc(dtype, op)})sum`, add);
    return `${OUTER_C}extern "C" __global__ void ${entry}(const ${s}* x, ${s}* y, long long count, long long len, long long base, long long step, int nd, MxDims ks, MxDims kst) {
  MX_GRID_LOOP(o, count) {
    long long off = base + mx_outer(o, nd, ks, kst);
    ${acc} sum = 0;
    for (long long i = 0; i < len; i++) sum += (${acc})${dtype === 'bool' ? 'x[off + i * step]' : loadC('x', dtype, 'off + i * step')};
    ${store}
  }
}
`;
  });
}

function traceGradSource(dtype: DTypeName) {
  const op = '_backward_npi_trace';
  return source(op, dtype, (entry) => {
    const s = st(dtype, op);
    const store =
      dtype === 'bool'
        ? 'g[j] = (unsigned char)(g[j] + og[o]);'
        : storeC(dtype, 'g', 'j', loadC('og', dtype, 'o'), true);
    return `${OUTER_C}extern "C" __global__ void ${entry}(const ${s}* og, ${s}* g, long long n, long long len, long long base, long long step, int nd, MxDims ks, MxDims kst) {
  MX_GRID_LOOP(e, n) {
    long long o = e / len;
    long long j = base + mx_outer(o, nd, ks, kst) + (e % len) * step;
    ${store}
  }
}
`;
  });
}

export function installNpTrace(registry: OpRegistry, host: CudaHost): void {
  if (registry.has('_npi_trace')) {
    registry.registerKernel(
      '_npi_trace',
      CUDA,
      cudaKernel(
        host,
        '_npi_trace',
        (attrs, [x], req, [y]) => {
          const op = '_npi_trace';
          if (x === undefined || y === undefined || skip(req[0]) || y.size === 0) return;
          checkRank(op, [x.shape], x.shape.length);
          const g = traceGeometry(x.shape, attrs);
          launch1d(host.rt, traceSource(y.dtype, isAdd(req[0])), g.count, [
            ptr(x, op),
            ptr(y, op),
            i64(g.count),
            i64(g.len),
            i64(g.base),
            i64(g.step),
            i32(g.keepShape.length),
            dims(g.keepShape),
            dims(g.keepStride),
          ]);
        },
        TRACE_DTYPES,
      ),
    );
  }
  if (registry.has('_backward_npi_trace')) {
    registry.registerKernel(
      '_backward_npi_trace',
      CUDA,
      cudaKernel(
        host,
        '_backward_npi_trace',
        (attrs, [og, x], req, [grad]) => {
          const op = '_backward_npi_trace';
          if (og === undefined || x === undefined || grad === undefined || skip(req[0]) || grad.size === 0)
            return;
          checkRank(op, [x.shape], x.shape.length);
          const rt = host.rt;
          if (!isAdd(req[0])) rt.memset(addr(grad, op), 0, grad.size * ctype(grad.dtype, op).bytes);
          const g = traceGeometry(x.shape, attrs);
          launch1d(rt, traceGradSource(grad.dtype), g.count * g.len, [
            ptr(og, op),
            ptr(grad, op),
            i64(g.count * g.len),
            i64(g.len),
            i64(g.base),
            i64(g.step),
            i32(g.keepShape.length),
            dims(g.keepShape),
            dims(g.keepStride),
          ]);
        },
        TRACE_DTYPES,
      ),
    );
  }
}
