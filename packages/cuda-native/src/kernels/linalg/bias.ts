/**
 * The two bias passes of FullyConnected: broadcasting b (n) into every row of Y (m×n) before the
 * GEMM accumulates onto it, and the bias gradient db[j] = Σ_i dY[i, j]. The column sum gives each
 * thread one column and walks the rows, so a warp reads 32 neighbouring floats per row (coalesced)
 * and every output is written by one thread (req add reads it back; no atomics). 16-bit floats
 * accumulate in float32, float64 in double.
 */
import type { DTypeName } from '@mx/base';
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

export function biasSource(dtype: DTypeName, add: boolean): CudaSource {
  return cachedSource('fc_bias', `${dtype}|${add}`, (entry) => {
    const T = ctype(dtype).storage;
    const K = KIND_C[ctype(dtype).kind];
    const v = add ? `${loadC('y', dtype, 'i')} + ${loadC('b', dtype, 'i % n')}` : loadC('b', dtype, 'i % n');
    return `extern "C" __global__ void ${entry}(${T}* y, const ${T}* b, long long total, long long n) {
  MX_GRID_LOOP(i, total) { const ${K} v = ${v}; y[i] = ${toStorage(dtype, 'v')}; }
}
`;
  });
}

/** Y[i, :] = b (or Y[i, :] += b when `add`), for Y (m×n) row-major. */
export function addBias(rt: CudaRuntime, y: CudaBlob, b: CudaBlob, m: number, n: number, add: boolean): void {
  const total = m * n;
  if (total === 0) return;
  rt.launch(
    biasSource(y.dtype, add),
    [blocksFor(total)],
    [BLOCK],
    [
      { t: 'ptr', v: addr(y) },
      { t: 'ptr', v: addr(b) },
      { t: 'i64', v: total },
      { t: 'i64', v: n },
    ],
  );
}

export function columnSumSource(dtype: DTypeName, add: boolean): CudaSource {
  return cachedSource('colsum', `${dtype}|${add}`, (entry) => {
    const T = ctype(dtype).storage;
    const acc = dtype === 'float64' ? 'double' : 'float';
    const result = add ? `(${acc})${loadC('out', dtype, 'j')} + s` : 's';
    return `extern "C" __global__ void ${entry}(${T}* out, const ${T}* x, long long m, long long n) {
  MX_GRID_LOOP(j, n) {
    ${acc} s = 0;
    for (long long i = 0; i < m; i++) s += (${acc})${loadC('x', dtype, 'i * n + j')};
    out[j] = ${toStorage(dtype, `(${KIND_C[ctype(dtype).kind]})(${result})`)};
  }
}
`;
  });
}

/** out[j] (+)= Σ_i x[i, j] for x (m×n) row-major. */
export function columnSum(
  rt: CudaRuntime,
  x: CudaBlob,
  m: number,
  n: number,
  out: CudaBlob,
  add: boolean,
): void {
  if (n === 0) return;
  rt.launch(
    columnSumSource(x.dtype, add),
    [blocksFor(n)],
    [BLOCK],
    [
      { t: 'ptr', v: addr(out) },
      { t: 'ptr', v: addr(x) },
      { t: 'i64', v: m },
      { t: 'i64', v: n },
    ],
  );
}
