/**
 * np search kernels on cuda-native: `_npi_searchsorted`, one thread (grid-stride) per element of
 * `v`, each a binary search over the sorted 1-D `a` in NumPy's order (NaN after every number, NaN
 * equal to NaN), as cpu-wasm's np/sort/searchsorted.ts. The output is int64 or int32 (the op's
 * `dtype`), req add accumulates. An empty `a` (no device memory, address 0) is never read: every
 * position is 0. Dtypes are cpu-wasm's for this op (the np layer widens the rest).
 */
import type { DTypeName } from '@mx/base';
import type { OpRegistry } from '@mx/ops';
import { loadC } from '../../cuda-c.js';
import { CUDA, type CudaHost, cudaKernel } from '../../kernel.js';
import { i64, isAdd, kc, launch1d, ptr, skip, source, st, storeC } from './common.js';

const OP = '_npi_searchsorted';

/** Dtypes of a and v, and the int32/int64 outputs. */
export const SEARCHSORTED_DTYPES: readonly DTypeName[] = [
  'float32',
  'float64',
  'int32',
  'int64',
  'int8',
  'uint8',
];

interface SearchAttrs {
  readonly side: 'left' | 'right';
  readonly dtype: 'int32' | 'int64';
  readonly [k: string]: unknown;
}

function searchSource(dt: DTypeName, ot: DTypeName, right: boolean, add: boolean) {
  return source(OP, `${dt}|${ot}|${right}|${add}`, (entry) => {
    const k = kc(dt, OP);
    const float = dt === 'float32' || dt === 'float64';
    // mx_lt(x, y): x sorts strictly before y.
    const lt = float
      ? `static __device__ __forceinline__ bool mx_lt(${k} x, ${k} y) { return x < y || (isnan(y) && !isnan(x)); }\n`
      : `static __device__ __forceinline__ bool mx_lt(${k} x, ${k} y) { return x < y; }\n`;
    return `${lt}extern "C" __global__ void ${entry}(const ${st(dt, OP)}* a, const ${st(dt, OP)}* v, ${st(ot, OP)}* out, long long n, long long count) {
  MX_GRID_LOOP(e, count) {
    ${k} x = ${loadC('v', dt, 'e')};
    long long lo = 0, hi = n;
    while (lo < hi) {
      long long mid = (lo + hi) >> 1;
      ${k} m = ${loadC('a', dt, 'mid')};
      if (${right ? '!mx_lt(x, m)' : 'mx_lt(m, x)'}) lo = mid + 1; else hi = mid;
    }
    ${storeC(ot, 'out', 'e', 'lo', add)}
  }
}
`;
  });
}

export function installNpSearch(registry: OpRegistry, host: CudaHost): void {
  if (!registry.has(OP)) return;
  registry.registerKernel(
    OP,
    CUDA,
    cudaKernel<SearchAttrs>(
      host,
      OP,
      (attrs, [a, v], req, [out]) => {
        if (a === undefined || v === undefined || out === undefined || skip(req[0]) || out.size === 0) return;
        launch1d(host.rt, searchSource(v.dtype, out.dtype, attrs.side === 'right', isAdd(req[0])), out.size, [
          ptr(a, OP),
          ptr(v, OP),
          ptr(out, OP),
          i64(a.size),
          i64(out.size),
        ]);
      },
      SEARCHSORTED_DTYPES,
    ),
  );
}
