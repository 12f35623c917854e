/**
 * `_backward_take`: out[o, k, j] sums og[o, i, j] over every index i resolving to row k. Written as
 * a gather (one thread per output element adding its preimages in ascending i), never as float
 * atomics, so results are deterministic and round exactly like cpu-wasm's scatter-add loop (which
 * adds in ascending i into a zeroed output, or into the output for req add). For few indices each
 * thread scans the index list; for more, the (row << 32 | position) keys are bitonic-sorted once in
 * scratch and each thread binary-searches its row's run. Both visit the same positions in the
 * same order, so the two paths agree bit for bit.
 */
import type { DTypeName } from '@mx/base';
import { type OpRegistry, OpReq, type OpReqType } from '@mx/ops';
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
import { addr, type CudaBlob, type CudaHost } from '../../kernel.js';
import type { CudaRuntime } from '../../runtime.js';
import { indexType, kernelError, norm, prod, reg, SUM_DTYPES, skip } from './common.js';
import { indexFns } from './gather.js';

/** Up to this many indices each output element scans the list instead of sorting it. */
export const SCAN_MAX = 64;

const cached = (key: string, make: (entry: string) => string): CudaSource =>
  cachedSource('shape_btake', key, make);

/** Accumulator start and output store of an output-indexed sum in `dtype`. */
function accumulator(dtype: DTypeName, add: boolean): { init: string; store: string } {
  const K = KIND_C[ctype(dtype).kind];
  return {
    init: `${K} acc = ${add ? loadC('out', dtype, 'e') : `(${K})0`};`,
    store: `out[e] = ${toStorage(dtype, 'acc')};`,
  };
}

function scanSource(dtype: DTypeName, idxType: DTypeName, add: boolean, I: string): CudaSource {
  return cached(`scan:${dtype}:${idxType}:${add ? 'add' : 'w'}:${I}`, (entry) => {
    const S = ctype(dtype).storage;
    const a = accumulator(dtype, add);
    return `${indexFns(idxType)}extern "C" __global__ void ${entry}(${S}* out, const ${S}* og, const ${ctype(idxType).storage}* idx, long long n, long long Nl, long long Kl, long long innerl, int wrap) {
  ${I} K = (${I})Kl, inner = (${I})innerl;
  MX_GRID_LOOP(i, n) {
    ${I} e = (${I})i;
    ${I} j = e % inner; ${I} r = e / inner; ${I} k = r % K; ${I} o = r / K;
    ${a.init}
    for (long long p = 0; p < Nl; p++) {
      if (mx_res(mx_idx(idx, p), Kl, wrap) == (long long)k) acc = acc + ${loadC('og', dtype, '((long long)o * Nl + p) * (long long)inner + j')};
    }
    ${a.store}
  }
}
`;
  });
}

function initSource(idxType: DTypeName): CudaSource {
  return cached(`init:${idxType}`, (entry) => {
    return `${indexFns(idxType)}extern "C" __global__ void ${entry}(unsigned long long* keys, const ${ctype(idxType).storage}* idx, long long M, long long N, long long K, int wrap) {
  MX_GRID_LOOP(i, M) {
    keys[i] = i < N ? (((unsigned long long)mx_res(mx_idx(idx, i), K, wrap) << 32) | (unsigned long long)i) : ~0ULL;
  }
}
`;
  });
}

/** One bitonic compare-exchange step (block `size`, distance `dist`) over M / 2 pairs. */
function stepSource(): CudaSource {
  return cached('step', (entry) => {
    return `extern "C" __global__ void ${entry}(unsigned long long* keys, long long half, long long size, long long dist) {
  MX_GRID_LOOP(i, half) {
    long long a = 2 * dist * (i / dist) + (i % dist);
    long long b = a + dist;
    bool up = (a & size) == 0;
    unsigned long long x = keys[a];
    unsigned long long y = keys[b];
    if ((y < x) == up) { keys[a] = y; keys[b] = x; }
  }
}
`;
  });
}

function sumSource(dtype: DTypeName, add: boolean, I: string): CudaSource {
  return cached(`sum:${dtype}:${add ? 'add' : 'w'}:${I}`, (entry) => {
    const S = ctype(dtype).storage;
    const a = accumulator(dtype, add);
    return `extern "C" __global__ void ${entry}(${S}* out, const ${S}* og, const unsigned long long* keys, long long n, long long Nl, long long Kl, long long innerl) {
  ${I} K = (${I})Kl, inner = (${I})innerl;
  MX_GRID_LOOP(i, n) {
    ${I} e = (${I})i;
    ${I} j = e % inner; ${I} r = e / inner; ${I} k = r % K; ${I} o = r / K;
    long long lo = 0, hi = Nl;
    while (lo < hi) {
      long long mid = (lo + hi) >> 1;
      if ((keys[mid] >> 32) < (unsigned long long)k) lo = mid + 1; else hi = mid;
    }
    ${a.init}
    for (long long p = lo; p < Nl && (keys[p] >> 32) == (unsigned long long)k; p++) {
      long long pos = (long long)(keys[p] & 0xffffffffULL);
      acc = acc + ${loadC('og', dtype, '((long long)o * Nl + pos) * (long long)inner + j')};
    }
    ${a.store}
  }
}
`;
  });
}

/** The bitonic schedule for M (a power of two) keys: [size, dist] per step. */
export function bitonicSteps(M: number): [number, number][] {
  const steps: [number, number][] = [];
  for (let size = 2; size <= M; size *= 2)
    for (let dist = size / 2; dist >= 1; dist /= 2) steps.push([size, dist]);
  return steps;
}

function takeGrad(
  rt: CudaRuntime,
  og: CudaBlob,
  ind: CudaBlob,
  out: CudaBlob,
  req: OpReqType,
  K: number,
  inner: number,
  wrap: boolean,
): void {
  const op = '_backward_take';
  const n = out.size;
  const N = ind.size;
  const add = req === OpReq.add;
  if (N === 0 || og.size === 0) {
    if (!add) rt.memset(addr(out, op), 0, n * ctype(out.dtype, op).bytes);
    return;
  }
  const I = indexType(Math.max(n, og.size));
  const base: { t: 'ptr'; v: number }[] = [
    { t: 'ptr', v: addr(out, op) },
    { t: 'ptr', v: addr(og, op) },
  ];
  if (N <= SCAN_MAX) {
    rt.launch(
      scanSource(out.dtype, ind.dtype, add, I),
      [blocksFor(n)],
      [BLOCK],
      [
        ...base,
        { t: 'ptr', v: addr(ind, op) },
        { t: 'i64', v: n },
        { t: 'i64', v: N },
        { t: 'i64', v: K },
        { t: 'i64', v: inner },
        { t: 'i32', v: wrap ? 1 : 0 },
      ],
    );
    return;
  }
  if (N >= 2 ** 32 || K >= 2 ** 32) {
    throw kernelError(op, `${N} indices into an axis of ${K} exceed the sort keys' 32-bit fields`, {
      shapes: [[...og.shape], [...ind.shape]],
    });
  }
  const M = 2 ** Math.ceil(Math.log2(N));
  const keys = rt.temp(M * 8);
  rt.launch(
    initSource(ind.dtype),
    [blocksFor(M)],
    [BLOCK],
    [
      { t: 'ptr', v: keys },
      { t: 'ptr', v: addr(ind, op) },
      { t: 'i64', v: M },
      { t: 'i64', v: N },
      { t: 'i64', v: K },
      { t: 'i32', v: wrap ? 1 : 0 },
    ],
  );
  const step = stepSource();
  for (const [size, dist] of bitonicSteps(M)) {
    rt.launch(
      step,
      [blocksFor(M / 2)],
      [BLOCK],
      [
        { t: 'ptr', v: keys },
        { t: 'i64', v: M / 2 },
        { t: 'i64', v: size },
        { t: 'i64', v: dist },
      ],
    );
  }
  rt.launch(
    sumSource(out.dtype, add, I),
    [blocksFor(n)],
    [BLOCK],
    [
      ...base,
      { t: 'ptr', v: keys },
      { t: 'i64', v: n },
      { t: 'i64', v: N },
      { t: 'i64', v: K },
      { t: 'i64', v: inner },
    ],
  );
}

export function installTakeGrad(registry: OpRegistry, host: CudaHost): void {
  reg<{ axis: number; mode: string }>(
    registry,
    host,
    '_backward_take',
    (a, [g, i], [r], [y]) => {
      if (skip(r, y)) return;
      const out = y as CudaBlob;
      const axis = norm(a.axis, out.shape.length);
      takeGrad(
        host.rt,
        g as CudaBlob,
        i as CudaBlob,
        out,
        r as OpReqType,
        out.shape[axis] as number,
        prod(out.shape, axis + 1),
        a.mode === 'wrap',
      );
    },
    SUM_DTYPES,
  );
}
