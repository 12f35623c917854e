/**
 * np creation kernels: the generators MXNet 2.0 gives their own FCompute (`_npi_linspace`,
 * `_npi_logspace`, `_npi_indices`, `_npi_tri`, and the windows `_npi_hanning` / `_npi_hamming` /
 * `_npi_blackman`) share one kernel shape — element i's value computed in double by an op-specific
 * body, then cast as cpu-wasm's `castValue` does — and `_npi_tril` / `_npi_triu` with their
 * gradients, which keep or zero each element of the trailing (rows, cols) matrices. The fills, eye,
 * arange and diag ops are composites over other families' kernels and need nothing here.
 */
import type { DTypeName } from '@mx/base';
import type { OpRegistry } from '@mx/ops';
import { CUDA_DTYPES, loadC, MAXD } from '../../cuda-c.js';
import { CUDA, type CudaHost, cudaKernel } from '../../kernel.js';
import {
  castFromDouble,
  checkRank,
  dims,
  f64,
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

/** The generator ops and the C body setting `double v` from `i` (params p0..p3, dims d, nd). */
const GEN_BODY: Readonly<Record<string, string>> = {
  // p0 start, p1 stop, p2 step, p3 = 1 when the endpoint is written exactly; n = num.
  _npi_linspace: 'v = i == 0 ? p0 : (p3 != 0.0 && i == n - 1) ? p1 : p0 + p2 * (double)i;',
  _npi_logspace: 'v = pow(p1, p0 + p2 * (double)i);',
  // d = dims, nd = their count, p0 = prod(dims).
  _npi_indices:
    'long long per = (long long)p0; long long ax = i / per; long long r = i % per; long long inner = 1; ' +
    'for (int k = nd - 1; k > (int)ax; k--) inner *= d.v[k]; v = (double)((r / inner) % d.v[ax]);',
  // p0 = cols, p1 = k.
  _npi_tri:
    'long long c = i % (long long)p0; long long r = i / (long long)p0; v = (double)c <= (double)r + p1 ? 1.0 : 0.0;',
  // p0 = M (window length).
  _npi_hanning: 'v = p0 == 1.0 ? 1.0 : 0.5 - 0.5 * cos(2.0 * 3.141592653589793 * (double)i / (p0 - 1.0));',
  _npi_hamming: 'v = p0 == 1.0 ? 1.0 : 0.54 - 0.46 * cos(2.0 * 3.141592653589793 * (double)i / (p0 - 1.0));',
  _npi_blackman:
    'v = p0 == 1.0 ? 1.0 : 0.42 - 0.5 * cos(2.0 * 3.141592653589793 * (double)i / (p0 - 1.0)) + ' +
    '0.08 * cos(4.0 * 3.141592653589793 * (double)i / (p0 - 1.0));',
};

/** Per-element double values of a generator, with an optional floor before an integer cast. */
function genSource(op: string, dtype: DTypeName, add: boolean, floorInt: boolean) {
  return source(op, `${dtype}|${add}|${floorInt}`, (entry) => {
    const [castDef, cast] = castFromDouble(dtype, op);
    return `${castDef}extern "C" __global__ void ${entry}(${st(dtype, op)}* out, long long n, double p0, double p1, double p2, double p3, MxDims d, int nd) {
  MX_GRID_LOOP(i, n) {
    double v = 0.0;
    { ${GEN_BODY[op]} }
    ${floorInt ? 'v = floor(v);' : ''}
    ${kc(dtype, op)} c = ${cast}(v);
    ${storeC(dtype, 'out', 'i', 'c', add)}
  }
}
`;
  });
}

interface GenParams {
  readonly p: readonly [number, number, number, number];
  readonly d?: readonly number[];
  readonly floorInt?: boolean;
}

function installGenerator<A>(
  registry: OpRegistry,
  host: CudaHost,
  op: string,
  params: (a: A, out: readonly number[]) => GenParams,
): void {
  if (!registry.has(op)) return;
  registry.registerKernel(
    op,
    CUDA,
    cudaKernel<A & Record<string, unknown>>(
      host,
      op,
      (a, _in, req, [out]) => {
        if (out === undefined || skip(req[0]) || out.size === 0) return;
        const g = params(a, out.shape);
        const floorInt = g.floorInt === true && /int/.test(out.dtype);
        const src = genSource(op, out.dtype, isAdd(req[0]), floorInt);
        launch1d(host.rt, src, out.size, [
          ptr(out, op),
          i64(out.size),
          ...g.p.map(f64),
          dims(g.d ?? []),
          i32(g.d?.length ?? 0),
        ]);
      },
      CUDA_DTYPES,
    ),
  );
}

interface LinspaceAttrs {
  readonly start_double: number;
  readonly stop_double: number;
  readonly start_int: number;
  readonly stop_int: number;
  readonly start_uint: number;
  readonly stop_uint: number;
  readonly num: number;
  readonly endpoint: boolean;
  readonly value_type: number;
}

interface LogspaceAttrs {
  readonly start: number;
  readonly stop: number;
  readonly num: number;
  readonly endpoint: boolean;
  readonly base: number;
}

/** The kept/zeroed triangle of x (same shape, or 1-D x = every row of a square). */
function triSource(op: string, dtype: DTypeName, lower: boolean, oneRow: boolean, add: boolean) {
  return source(op, `${dtype}|${lower}|${oneRow}|${add}`, (entry) => {
    const s = st(dtype, op);
    const keep = lower ? 'c <= r + k' : 'c >= r + k';
    return `extern "C" __global__ void ${entry}(const ${s}* x, ${s}* out, long long n, long long rows, long long cols, long long k) {
  MX_GRID_LOOP(i, n) {
    long long c = i % cols;
    long long r = (i / cols) % rows;
    ${kc(dtype, op)} v = ${keep} ? ${loadC('x', dtype, oneRow ? 'c' : 'i')} : (${kc(dtype, op)})0;
    ${storeC(dtype, 'out', 'i', 'v', add)}
  }
}
`;
  });
}

/** Gradient of a 1-D input: out[c] = Σ over the rows r that kept column c of g[r, c]. */
function columnSumSource(op: string, dtype: DTypeName, lower: boolean, add: boolean) {
  return source(op, `colsum|${dtype}|${lower}|${add}`, (entry) => {
    const s = st(dtype, op);
    const acc = dtype === 'float64' ? 'double' : kc(dtype, op) === 'float' ? 'float' : 'long long';
    const keep = lower ? 'c <= r + k' : 'c >= r + k';
    return `extern "C" __global__ void ${entry}(const ${s}* g, ${s}* out, long long n, long long k) {
  MX_GRID_LOOP(c, n) {
    ${acc} sum = 0;
    for (long long r = 0; r < n; r++) if (${keep}) sum += (${acc})${loadC('g', dtype, 'r * n + c')};
    ${storeC(dtype, 'out', 'c', `(${kc(dtype, op)})sum`, add)}
  }
}
`;
  });
}

function installTriangle(registry: OpRegistry, host: CudaHost): void {
  for (const [name, back, lower] of [
    ['_npi_tril', '_backward_tril', true],
    ['_npi_triu', '_backward_triu', false],
  ] as const) {
    const tri = (
      op: string,
      x: Parameters<typeof ptr>[0],
      out: Parameters<typeof ptr>[0],
      k: number,
      add: boolean,
    ) => {
      const nd = out.shape.length;
      const rows = out.shape[nd - 2] as number;
      const cols = out.shape[nd - 1] as number;
      const src = triSource(op, out.dtype, lower, x.shape.length === 1, add);
      launch1d(host.rt, src, out.size, [
        ptr(x, op),
        ptr(out, op),
        i64(out.size),
        i64(rows),
        i64(cols),
        i64(k),
      ]);
    };
    if (registry.has(name)) {
      registry.registerKernel(
        name,
        CUDA,
        cudaKernel<{ k: number }>(
          host,
          name,
          (a, [x], req, [out]) => {
            if (x === undefined || out === undefined || skip(req[0]) || out.size === 0) return;
            tri(name, x, out, a.k, isAdd(req[0]));
          },
          CUDA_DTYPES,
        ),
      );
    }
    if (registry.has(back)) {
      registry.registerKernel(
        back,
        CUDA,
        cudaKernel<{ k: number }>(
          host,
          back,
          (a, [g], req, [out]) => {
            if (g === undefined || out === undefined || skip(req[0]) || out.size === 0) return;
            if (out.shape.length === 1) {
              const src = columnSumSource(back, out.dtype, lower, isAdd(req[0]));
              launch1d(host.rt, src, out.size, [ptr(g, back), ptr(out, back), i64(out.size), i64(a.k)]);
            } else tri(back, g, out, a.k, isAdd(req[0]));
          },
          CUDA_DTYPES,
        ),
      );
    }
  }
}

export function installNpCreation(registry: OpRegistry, host: CudaHost): void {
  installTriangle(registry, host);
  installGenerator<LinspaceAttrs>(registry, host, '_npi_linspace', (a) => {
    const [start, stop] =
      a.value_type === 0
        ? [a.start_int, a.stop_int]
        : a.value_type === 1
          ? [a.start_uint, a.stop_uint]
          : [a.start_double, a.stop_double];
    const stepNum = a.endpoint ? a.num - 1 : a.num;
    const step = stepNum > 0 ? (stop - start) / stepNum : 0;
    return { p: [start, stop, step, a.endpoint ? 1 : 0], floorInt: true };
  });
  installGenerator<LogspaceAttrs>(registry, host, '_npi_logspace', (a) => {
    const stepNum = a.endpoint ? a.num - 1 : a.num;
    const step = stepNum > 0 ? (a.stop - a.start) / stepNum : 0;
    return { p: [a.start, a.base, step, 0] };
  });
  installGenerator<{ dimensions: readonly number[] }>(registry, host, '_npi_indices', (a) => {
    checkRank('_npi_indices', [a.dimensions], a.dimensions.length > MAXD ? a.dimensions.length : 0);
    return { p: [a.dimensions.reduce((p, d) => p * d, 1), 0, 0, 0], d: a.dimensions };
  });
  installGenerator<{ k: number }>(registry, host, '_npi_tri', (a, shape) => ({
    p: [shape[1] as number, a.k, 0, 0],
  }));
  for (const w of ['_npi_hanning', '_npi_hamming', '_npi_blackman']) {
    installGenerator<{ M: number | null }>(registry, host, w, (a) => ({ p: [a.M ?? 0, 0, 0, 0] }));
  }
}
