/**
 * sort, argsort and topk on cuda-native: a bitonic sort of (key, index) pairs per lane.
 *
 * Each element becomes a 64-bit key whose unsigned order is the wanted order (floats through
 * double: sign-flipped bits, -0 folded onto +0, every NaN one key below the maximum, so NumPy's
 * "NaN last" holds; integers: sign bias; descending order complements the key, so NaN comes first,
 * as cpu-wasm's reverse ranking), paired with its position in the lane. Comparing (key, index) makes
 * every pair distinct, so the unstable network yields the stable order cpu-wasm gives: ties keep
 * input order in both directions. Lanes are padded to P = 2^ceil(log2 n) with (max, max) pairs that
 * sort last.
 *
 * - P <= TMAX (2048): one fused kernel. A block loads T/P whole lanes into shared memory (keys,
 *   indices, and the values when they are an output), sorts each P-aligned segment with the stages
 *   k <= P (so segments never mix), then writes values/indices for the first k and the mask for
 *   every position. Every read of the input precedes the barrier and blocks own disjoint lanes, so
 *   writing the result over the input (in place) is safe.
 * - Longer lanes: keys/indices in per-op scratch; a local kernel sorts each TMAX chunk, stages
 *   whose partner distance is >= TMAX run as one global launch each, each followed by a local
 *   launch finishing that merge's short distances; a finish kernel gathers the outputs (values from
 *   a copy of the input when an output overwrites it).
 */
import type { DTypeName } from '@mx/base';
import { OpReq, type OpReqType } from '@mx/ops';
import { blocksFor, type CudaSource, cachedSource, ctype } from '../../cuda-c.js';
import { addr, type CudaBlob } from '../../kernel.js';
import type { CudaRuntime } from '../../runtime.js';
import { accC, accKind, fromStorageC, HELPERS, writeC } from './cgen.js';
import { laneGeometry, nextPow2, REDUCE_DTYPES, unsupported } from './geometry.js';

const WG = 256;
export const TMAX = 2048;

/** Index dtypes topk/argsort write (MXNet's enum), beyond the input dtypes. */
export const INDEX_DTYPES: readonly DTypeName[] = [
  'uint8',
  'int32',
  'int64',
  'float16',
  'float32',
  'float64',
];

/** One output a call writes and its req. */
export interface Out {
  readonly blob: CudaBlob;
  readonly req: OpReqType;
}

/** Which outputs a call writes. */
export interface SortOutputs {
  readonly values?: Out | undefined;
  readonly indices?: Out | undefined;
  readonly mask?: Out | undefined;
}

/** Dtypes of the present outputs: the specialisation of the fused and finish kernels. */
interface Shape {
  readonly x: DTypeName;
  readonly v: boolean;
  readonly i: DTypeName | null;
  readonly m: DTypeName | null;
}

function keyFn(dtype: DTypeName): string {
  const A = accC(accKind(dtype));
  const float = accKind(dtype) === 'f32' || accKind(dtype) === 'f64';
  const body = float
    ? `double d = (double)v;
  if (mx_nan(d)) return 0xfffffffffffffffeULL;
  if (d == 0.0) d = 0.0;
  const unsigned long long b = (unsigned long long)__double_as_longlong(d);
  return (b >> 63) ? ~b : (b | 0x8000000000000000ULL);`
    : 'return (unsigned long long)(long long)v ^ 0x8000000000000000ULL;';
  return `static __device__ __forceinline__ unsigned long long mx_key(${A} v) {
  ${body}
}
`;
}

/** Compare-and-swap of slots i and l (arrays sk, sx) when out of order for direction `asc`. */
const CAS = `const bool gt = sk[i] > sk[l] || (sk[i] == sk[l] && sx[i] > sx[l]);
      if (gt == asc) { const unsigned long long tk = sk[i]; sk[i] = sk[l]; sk[l] = tk; const unsigned tx = sx[i]; sx[i] = sx[l]; sx[l] = tx; }`;

/** Output writes for slot j (< n) of lane `row` whose source index is `src`; `val` reads its value (storage). */
function writesC(s: Shape, val: string): string {
  const kind = ctype(s.x).kind;
  const lines = [
    'const long long o = row / inner; const long long kk = row - o * inner;',
    'const long long inPos = o * n * inner + kk + (long long)src * inner;',
    'const long long outPos = o * k * inner + kk + j * inner;',
  ];
  if (s.v) lines.push(`if (j < k) ${writeC(s.x, 'vals', 'outPos', kind, fromStorageC(s.x, val), 'addV')}`);
  if (s.i !== null) lines.push(`if (j < k) ${writeC(s.i, 'idx', 'outPos', 'i64', '(long long)src', 'addI')}`);
  if (s.m !== null) lines.push(writeC(s.m, 'mask', 'inPos', 'i32', 'j < k ? 1 : 0', 'addM'));
  return lines.join('\n      ');
}

const outParams = (s: Shape) =>
  `${ctype(s.x).storage}* vals, ${ctype(s.i ?? 'int32').storage}* idx, ${ctype(s.m ?? 'int32').storage}* mask`;

const shapeKey = (s: Shape) => `${s.x}:${s.v ? 'v' : ''}:${s.i ?? ''}:${s.m ?? ''}`;

const cached = (key: string, name: string, make: (entry: string) => string): CudaSource =>
  cachedSource(name, key, make);

/** The lane-gathering load of slot (row, j) into keys/indices (and values) of slot q. */
function loadSlot(s: Shape, keys: string, ids: string, valsArr: string | null): string {
  return `long long row = row0 + q / P; const long long j = q & (P - 1);
    if (row < rows && j < n) {
      const ${ctype(s.x).storage} e = x[(row / inner) * n * inner + row % inner + j * inner];
      const unsigned long long key = mx_key((${accC(accKind(s.x))})${fromStorageC(s.x, 'e')});
      ${keys} = desc ? ~key : key; ${ids} = (unsigned)j;${valsArr === null ? '' : ` ${valsArr} = e;`}
    } else { ${keys} = 0xffffffffffffffffULL; ${ids} = 0xffffffffu; }`;
}

function fusedSource(s: Shape): CudaSource {
  return cached(`sort:fused:${shapeKey(s)}`, 'sort_fused', (entry) => {
    const X = ctype(s.x).storage;
    return `${HELPERS}${keyFn(s.x)}
extern "C" __global__ void __launch_bounds__(${WG}) ${entry}(const ${X}* x, ${outParams(s)}, long long rows, long long n, long long inner, long long P, long long T, long long k, int desc, int addV, int addI, int addM) {
  __shared__ unsigned long long sk[${TMAX}];
  __shared__ unsigned sx[${TMAX}];
  ${s.v ? `__shared__ ${X} sv[${TMAX}];` : ''}
  const long long row0 = (long long)blockIdx.x * (T / P);
  for (long long q = threadIdx.x; q < T; q += ${WG}) {
    ${loadSlot(s, 'sk[q]', 'sx[q]', s.v ? 'sv[q]' : null)}
  }
  __syncthreads();
  for (long long kb = 2; kb <= P; kb <<= 1) {
    for (long long jb = kb >> 1; jb > 0; jb >>= 1) {
      for (long long p = threadIdx.x; p < T / 2; p += ${WG}) {
        const long long i = ((p & ~(jb - 1)) << 1) | (p & (jb - 1));
        const long long l = i + jb;
        const bool asc = ((i & (P - 1)) & kb) == 0;
        ${CAS}
      }
      __syncthreads();
    }
  }
  for (long long q = threadIdx.x; q < T; q += ${WG}) {
    const long long row = row0 + q / P; const long long j = q & (P - 1);
    if (row < rows && j < n) {
      const unsigned src = sx[q];
      ${writesC(s, 'sv[(q & ~(P - 1)) + src]')}
    }
  }
}
`;
  });
}

function prepareSource(s: Shape): CudaSource {
  return cached(`sort:prepare:${s.x}`, 'sort_prepare', (entry) => {
    const X = ctype(s.x).storage;
    return `${HELPERS}${keyFn(s.x)}
extern "C" __global__ void ${entry}(const ${X}* x, unsigned long long* K, unsigned* I, long long rows, long long n, long long inner, long long P, int desc) {
  const long long row0 = 0;
  MX_GRID_LOOP(q, rows * P) {
    ${loadSlot(s, 'K[q]', 'I[q]', null)}
  }
}
`;
  });
}

function localSource(): CudaSource {
  return cached(
    'sort:local',
    'sort_local',
    (
      entry,
    ) => `extern "C" __global__ void __launch_bounds__(${WG}) ${entry}(unsigned long long* K, unsigned* I, long long P, long long k0, long long kEnd, long long j0) {
  __shared__ unsigned long long sk[${TMAX}];
  __shared__ unsigned sx[${TMAX}];
  const long long base = (long long)blockIdx.x * ${TMAX};
  for (int q = threadIdx.x; q < ${TMAX}; q += ${WG}) { sk[q] = K[base + q]; sx[q] = I[base + q]; }
  __syncthreads();
  long long kb = k0;
  long long jb = j0;
  while (kb <= kEnd) {
    for (long long p = threadIdx.x; p < ${TMAX / 2}; p += ${WG}) {
      const long long i = ((p & ~(jb - 1)) << 1) | (p & (jb - 1));
      const long long l = i + jb;
      const bool asc = (((base + i) & (P - 1)) & kb) == 0;
      ${CAS}
    }
    __syncthreads();
    if (jb <= 1) { kb <<= 1; jb = kb >> 1; } else { jb >>= 1; }
  }
  for (int q = threadIdx.x; q < ${TMAX}; q += ${WG}) { K[base + q] = sk[q]; I[base + q] = sx[q]; }
}
`,
  );
}

function globalSource(): CudaSource {
  return cached(
    'sort:global',
    'sort_global',
    (
      entry,
    ) => `extern "C" __global__ void ${entry}(unsigned long long* sk, unsigned* sx, long long P, long long kb, long long jb, long long half) {
  MX_GRID_LOOP(p, half) {
    const long long i = ((p & ~(jb - 1)) << 1) | (p & (jb - 1));
    const long long l = i + jb;
    const bool asc = ((i & (P - 1)) & kb) == 0;
    ${CAS}
  }
}
`,
  );
}

function finishSource(s: Shape): CudaSource {
  return cached(`sort:finish:${shapeKey(s)}`, 'sort_finish', (entry) => {
    const X = ctype(s.x).storage;
    return `${HELPERS}
extern "C" __global__ void ${entry}(const ${X}* x, const unsigned* I, ${outParams(s)}, long long rows, long long n, long long inner, long long P, long long m, long long k, int addV, int addI, int addM) {
  MX_GRID_LOOP(e, rows * m) {
    const long long row = e / m; const long long j = e - row * m;
    const unsigned src = I[row * P + j];
    ${writesC(s, 'x[inPos]')}
  }
}
`;
  });
}

const live = (o: Out | undefined): Out | undefined =>
  o !== undefined && o.req !== OpReq.null && o.blob.size > 0 ? o : undefined;

const SORT_DTYPES = REDUCE_DTYPES;

/** Sort each lane of `x` along `axis` and write the first k (k < 1: all) to the requested outputs. */
export function sortLanes(
  rt: CudaRuntime,
  name: string,
  input: CudaBlob,
  axis: number | null,
  kParam: number,
  ascend: boolean,
  outs: SortOutputs,
): void {
  let x = input;
  if (!SORT_DTYPES.includes(x.dtype)) throw unsupported(name, x.dtype, SORT_DTYPES);
  for (const b of [outs.values?.blob, outs.mask?.blob])
    if (b !== undefined && !SORT_DTYPES.includes(b.dtype)) throw unsupported(name, b.dtype, SORT_DTYPES);
  const ib = outs.indices?.blob;
  if (ib !== undefined && !INDEX_DTYPES.includes(ib.dtype)) throw unsupported(name, ib.dtype, INDEX_DTYPES);
  const o = { values: live(outs.values), indices: live(outs.indices), mask: live(outs.mask) };
  if (x.size === 0 || (!o.values && !o.indices && !o.mask)) return;
  const [outer, n, inner] = laneGeometry(x.shape, axis);
  const rows = outer * inner;
  const k = kParam > 0 ? Math.min(kParam, n) : n;
  const P = nextPow2(n);
  const s: Shape = {
    x: x.dtype,
    v: o.values !== undefined,
    i: o.indices?.blob.dtype ?? null,
    m: o.mask?.blob.dtype ?? null,
  };
  const ptr = (b: Out | undefined) => (b === undefined ? 0 : addr(b.blob, name));
  const outArgs = [
    { t: 'ptr', v: ptr(o.values) },
    { t: 'ptr', v: ptr(o.indices) },
    { t: 'ptr', v: ptr(o.mask) },
  ] as const;
  const flags = [o.values, o.indices, o.mask].map(
    (b) => ({ t: 'i32', v: b?.req === OpReq.add ? 1 : 0 }) as const,
  );
  const desc = { t: 'i32', v: ascend ? 0 : 1 } as const;
  if (P <= TMAX) {
    const T = P * Math.min(TMAX / P, nextPow2(rows));
    const blocks = Math.ceil(rows / (T / P));
    rt.launch(
      fusedSource(s),
      [blocks],
      [WG],
      [
        { t: 'ptr', v: addr(x, name) },
        ...outArgs,
        { t: 'i64', v: rows },
        { t: 'i64', v: n },
        { t: 'i64', v: inner },
        { t: 'i64', v: P },
        { t: 'i64', v: T },
        { t: 'i64', v: k },
        desc,
        ...flags,
      ],
    );
    return;
  }
  const xp = addr(x, name);
  if ([o.values, o.mask].some((b) => b !== undefined && addr(b.blob, name) === xp)) {
    // An output over the input (in place): gather values from a copy.
    const bytes = x.size * ctype(x.dtype).bytes;
    const copy = rt.temp(bytes);
    rt.copy(copy, xp, bytes);
    x = { ...x, ptr: copy, byteOffset: 0 };
  }
  const total = rows * P;
  const K = rt.temp(total * 8);
  const I = rt.temp(total * 4);
  rt.launch(
    prepareSource(s),
    [blocksFor(total)],
    [WG],
    [
      { t: 'ptr', v: addr(x, name) },
      { t: 'ptr', v: K },
      { t: 'ptr', v: I },
      { t: 'i64', v: rows },
      { t: 'i64', v: n },
      { t: 'i64', v: inner },
      { t: 'i64', v: P },
      desc,
    ],
  );
  const local = (k0: number, kEnd: number, j0: number) =>
    rt.launch(
      localSource(),
      [total / TMAX],
      [WG],
      [
        { t: 'ptr', v: K },
        { t: 'ptr', v: I },
        { t: 'i64', v: P },
        { t: 'i64', v: k0 },
        { t: 'i64', v: kEnd },
        { t: 'i64', v: j0 },
      ],
    );
  local(2, TMAX, 1);
  for (let kb = 2 * TMAX; kb <= P; kb *= 2) {
    for (let jb = kb / 2; jb >= TMAX; jb /= 2) {
      rt.launch(
        globalSource(),
        [blocksFor(total / 2)],
        [WG],
        [
          { t: 'ptr', v: K },
          { t: 'ptr', v: I },
          { t: 'i64', v: P },
          { t: 'i64', v: kb },
          { t: 'i64', v: jb },
          { t: 'i64', v: total / 2 },
        ],
      );
    }
    local(kb, kb, TMAX / 2);
  }
  const m = o.mask !== undefined ? n : k;
  rt.launch(
    finishSource(s),
    [blocksFor(rows * m)],
    [WG],
    [
      { t: 'ptr', v: addr(x, name) },
      { t: 'ptr', v: I },
      ...outArgs,
      { t: 'i64', v: rows },
      { t: 'i64', v: n },
      { t: 'i64', v: inner },
      { t: 'i64', v: P },
      { t: 'i64', v: m },
      { t: 'i64', v: k },
      ...flags,
    ],
  );
}
