/**
 * Index-driven kernels, all output-indexed (one thread per output element, so no two threads write
 * one location and results are deterministic). Indices of any stored dtype are read as truncated
 * integers (float NaN → 0, bool → 0/1) and resolved by mode exactly like cpu-wasm (clip clamps,
 * wrap takes the index modulo the axis length):
 * - take: out[o, i, j] = data[o, idx[i], j]  (raw elements: every dtype);
 * - pick: out[o, j] = data[o, idx[o, j], j];  one_hot: (idx[i] == d) ? on : off;
 * - `_backward_pick`: each data position has at most one preimage: out[o, m, j] = og[o, j] where
 *   idx[o, j] resolves to m, else 0.
 * Write moves raw 1/2/4/8-byte words; req add uses the dtype's arithmetic.
 *
 * take with mode 'raise' first runs a check kernel recording the first out-of-range position (and
 * its index) in scratch the runtime reads back (`rt.check`): the op then fails with cpu-wasm's
 * MXNetError, and the gather, which reads the verdict, writes nothing — as cpu-wasm checks every
 * index before writing.
 */
import { type DTypeName, MXNetError } from '@mx/base';
import { type OpRegistry, OpReq, type OpReqType } from '@mx/ops';
import {
  BLOCK,
  blocksFor,
  type CudaSource,
  cachedSource,
  ctype,
  hashText,
  KIND_C,
  loadC,
  toStorage,
} from '../../cuda-c.js';
import { addr, type CudaBlob, type CudaHost } from '../../kernel.js';
import { indexType, norm, prod, rawType, reg, SUM_DTYPES, scalarParam, skip } from './common.js';

/** `mx_idx(p, i)` (index i of array p as a truncated long long) and `mx_res(j, K, wrap)`. */
export function indexFns(idxType: DTypeName): string {
  const t = ctype(idxType);
  const v = loadC('p', idxType, 'i');
  let body: string;
  if (t.kind === 'f32' || t.kind === 'f64')
    body = `double x = trunc((double)(${v}));
  if (x != x) return 0;
  if (x > 9.2e18) return 9200000000000000000LL;
  if (x < -9.2e18) return -9200000000000000000LL;
  return (long long)x;`;
  else if (t.kind === 'bool') body = `return ${v} ? 1 : 0;`;
  else body = `return (long long)(${v});`;
  return `static __device__ __forceinline__ long long mx_idx(const ${t.storage}* p, long long i) {
  ${body}
}
static __device__ __forceinline__ long long mx_res(long long j, long long K, int wrap) {
  if (wrap) { long long m = j % K; return m < 0 ? m + K : m; }
  return j < 0 ? 0 : (j >= K ? K - 1 : j);
}
`;
}

type Kind = 'take' | 'pick' | 'bpick';

const cache = new Map<string, CudaSource>();

/** The C storage type an output of `dtype` is moved as (raw words for write). */
function moveType(dtype: DTypeName, add: boolean): string {
  return add ? ctype(dtype).storage : rawType(ctype(dtype).bytes);
}

function gatherSource(kind: Kind, dtype: DTypeName, idxType: DTypeName, add: boolean, I: string): CudaSource {
  const key = `${kind}:${add ? dtype : `w${ctype(dtype).bytes}`}:${idxType}:${I}`;
  return cachedSource(`shape_${kind}`, key, (entry) => {
    const S = moveType(dtype, add);
    const IT = ctype(idxType).storage;
    const put = (src: string) =>
      add
        ? `out[e] = ${toStorage(dtype, `${loadC('out', dtype, 'e')} + ${loadC('data', dtype, src)}`)};`
        : `out[e] = data[${src}];`;
    let params: string;
    let body: string;
    if (kind === 'take') {
      params = 'long long Nl, long long Kl, long long innerl, int wrap, const unsigned long long* bad';
      body = `    if (bad != 0 && bad[0] != 0xffffffffffffffffull) return;
    ${I} N = (${I})Nl, inner = (${I})innerl;
    ${I} j = e % inner; ${I} r = e / inner; ${I} i2 = r % N; ${I} o = r / N;
    long long k = mx_res(mx_idx(idx, (long long)i2), Kl, wrap);
    long long so = ((long long)o * Kl + k) * (long long)inner + j;
    ${put('so')}`;
    } else if (kind === 'pick') {
      params = 'long long Kl, long long innerl, int wrap';
      body = `    ${I} inner = (${I})innerl;
    ${I} j = e % inner; ${I} o = e / inner;
    long long k = mx_res(mx_idx(idx, (long long)e), Kl, wrap);
    long long so = ((long long)o * Kl + k) * (long long)inner + j;
    ${put('so')}`;
    } else {
      params = 'long long Kl, long long innerl, int wrap';
      const zero = add ? '' : `\n    else out[e] = (${S})0;`;
      body = `    ${I} K = (${I})Kl, inner = (${I})innerl;
    ${I} j = e % inner; ${I} r = e / inner; ${I} m = r % K; ${I} o = r / K;
    long long p = (long long)o * inner + j;
    if (mx_res(mx_idx(idx, p), Kl, wrap) == (long long)m) { ${put('p')} }${zero}`;
    }
    const code = `${indexFns(idxType)}extern "C" __global__ void ${entry}(${S}* out, const ${S}* data, const ${IT}* idx, long long n, ${params}) {
  MX_GRID_LOOP(i, n) {
    ${I} e = (${I})i;
${body}
  }
}
`;
    return code;
  });
}

function oneHotSource(dtype: DTypeName, idxType: DTypeName, add: boolean, I: string, fc: string): CudaSource {
  const key = `one_hot:${dtype}:${idxType}:${add ? 'add' : 'w'}:${I}:${fc}`;
  return cachedSource(`shape_one_hot`, key, (entry) => {
    const S = ctype(dtype).storage;
    const K = KIND_C[ctype(dtype).kind];
    const store = add
      ? `out[e] = ${toStorage(dtype, `${loadC('out', dtype, 'e')} + (${K})v`)};`
      : `out[e] = ${toStorage(dtype, 'v')};`;
    const code = `${indexFns(idxType)}extern "C" __global__ void ${entry}(${S}* out, const ${ctype(idxType).storage}* idx, long long n, long long depthl, ${fc} on, ${fc} off) {
  ${I} depth = (${I})depthl;
  MX_GRID_LOOP(i, n) {
    ${I} e = (${I})i;
    ${I} d = e % depth;
    ${fc} v = mx_idx(idx, (long long)(e / depth)) == (long long)d ? on : off;
    ${store}
  }
}
`;
    return code;
  });
}

/** Launch one gather kind over `out` (data may be the ograd for bpick). */
function runGather(
  host: CudaHost,
  op: string,
  kind: Kind,
  data: CudaBlob,
  ind: CudaBlob,
  out: CudaBlob,
  req: OpReqType,
  geo: readonly number[],
  wrap: boolean,
  bad = 0,
): void {
  const n = out.size;
  const add = req === OpReq.add;
  const source = gatherSource(kind, out.dtype, ind.dtype, add, indexType(Math.max(n, data.size)));
  host.rt.launch(
    source,
    [blocksFor(n)],
    [BLOCK],
    [
      { t: 'ptr', v: addr(out, op) },
      { t: 'ptr', v: data.size === 0 ? addr(out, op) : addr(data, op) },
      { t: 'ptr', v: ind.size === 0 ? addr(out, op) : addr(ind, op) },
      { t: 'i64', v: n },
      ...geo.map((v) => ({ t: 'i64' as const, v })),
      { t: 'i32', v: wrap ? 1 : 0 },
      ...(kind === 'take' ? [{ t: 'ptr' as const, v: bad }] : []),
    ],
  );
}

/** The two kernels of take's raise check: first bad position (atomicMin), then its index value. */
function raiseSources(idxType: DTypeName): [CudaSource, CudaSource] {
  const key = `take-raise:${idxType}`;
  const IT = ctype(idxType).storage;
  const mk = (step: string, body: string): CudaSource => {
    const k = `${key}:${step}`;
    const hit = cache.get(k);
    if (hit !== undefined) return hit;
    const entry = `mx_shape_take_${step}_${hashText(k)}`;
    const src = {
      entry,
      code: `${indexFns(idxType)}extern "C" __global__ void ${entry}(unsigned long long* bad, const ${IT}* idx, long long n, long long K) {
${body}
}
`,
    };
    cache.set(k, src);
    return src;
  };
  return [
    mk(
      'find',
      `  MX_GRID_LOOP(i, n) {
    long long j = mx_idx(idx, i);
    if (j < 0 || j >= K) atomicMin(bad, (unsigned long long)i);
  }`,
    ),
    mk(
      'value',
      '  if (blockIdx.x == 0 && threadIdx.x == 0 && bad[0] != 0xffffffffffffffffull) bad[1] = (unsigned long long)mx_idx(idx, (long long)bad[0]);',
    ),
  ];
}

/**
 * Queue take's raise check over `ind` (K = axis length); returns the verdict's device address for
 * the gather. The op fails with the first bad position and its index.
 */
function raiseCheck(
  host: CudaHost,
  a: { axis: number; mode: string },
  data: CudaBlob,
  ind: CudaBlob,
  axis: number,
  K: number,
): number {
  const rt = host.rt;
  const bad = rt.check(16, (bytes) => {
    const v = new BigInt64Array(bytes.buffer, bytes.byteOffset, 2);
    if (v[0] === -1n) return undefined;
    return new MXNetError(
      `Take indices contains indices out of bound: index ${v[1]} is out of bounds for axis ${axis} with size ${K} (position ${v[0]})`,
      {
        op: 'take',
        params: a,
        shapes: [data.shape, ind.shape],
        device: `gpu(${rt.device})`,
        hint: `indices must lie in [0, ${K - 1}] with mode='raise'; use mode='clip' or 'wrap' otherwise`,
      },
    );
  });
  rt.memset(bad, 0xff, 16);
  if (ind.size === 0) return bad;
  const [find, value] = raiseSources(ind.dtype);
  const args = [
    { t: 'ptr' as const, v: bad },
    { t: 'ptr' as const, v: addr(ind, 'take') },
    { t: 'i64' as const, v: ind.size },
    { t: 'i64' as const, v: K },
  ];
  rt.launch(find, [blocksFor(ind.size)], [BLOCK], args);
  rt.launch(value, [1], [32], args);
  return bad;
}

export function installGather(registry: OpRegistry, host: CudaHost): void {
  reg<{ axis: number; mode: string }>(registry, host, 'take', (a, [x, i], [r], [y]) => {
    if (skip(r, y)) return;
    const data = x as CudaBlob;
    const ind = i as CudaBlob;
    const out = y as CudaBlob;
    const axis = norm(a.axis, data.shape.length);
    const K = data.shape[axis] as number;
    if (K === 0 || data.size === 0) {
      if (r !== OpReq.add) host.rt.memset(addr(out, 'take'), 0, out.size * ctype(out.dtype, 'take').bytes);
      return;
    }
    const bad = a.mode === 'raise' ? raiseCheck(host, a, data, ind, axis, K) : 0;
    runGather(
      host,
      'take',
      'take',
      data,
      ind,
      out,
      r as OpReqType,
      [ind.size, K, prod(data.shape, axis + 1)],
      a.mode === 'wrap',
      bad,
    );
  });

  reg<{ axis: number | null; mode: string }>(registry, host, 'pick', (a, [x, i], [r], [y]) => {
    if (skip(r, y)) return;
    const data = x as CudaBlob;
    const out = y as CudaBlob;
    const axis = norm(a.axis ?? -1, data.shape.length);
    if (data.size === 0) {
      if (r !== OpReq.add) host.rt.memset(addr(out, 'pick'), 0, out.size * ctype(out.dtype, 'pick').bytes);
      return;
    }
    runGather(
      host,
      'pick',
      'pick',
      data,
      i as CudaBlob,
      out,
      r as OpReqType,
      [data.shape[axis] as number, prod(data.shape, axis + 1)],
      a.mode === 'wrap',
    );
  });

  reg<{ axis: number | null; mode: string }>(
    registry,
    host,
    '_backward_pick',
    (a, [g, i], [r], [y]) => {
      if (skip(r, y)) return;
      const out = y as CudaBlob;
      const axis = norm(a.axis ?? -1, out.shape.length);
      runGather(
        host,
        '_backward_pick',
        'bpick',
        g as CudaBlob,
        i as CudaBlob,
        out,
        r as OpReqType,
        [out.shape[axis] as number, prod(out.shape, axis + 1)],
        a.mode === 'wrap',
      );
    },
    SUM_DTYPES,
  );

  reg<{ depth: number; on_value: number; off_value: number }>(
    registry,
    host,
    'one_hot',
    (a, [i], [r], [y]) => {
      if (skip(r, y)) return;
      const ind = i as CudaBlob;
      const out = y as CudaBlob;
      const on = scalarParam(out.dtype, a.on_value, 'one_hot');
      const off = scalarParam(out.dtype, a.off_value, 'one_hot');
      const n = out.size;
      host.rt.launch(
        oneHotSource(out.dtype, ind.dtype, r === OpReq.add, indexType(n), on.c),
        [blocksFor(n)],
        [BLOCK],
        [
          { t: 'ptr', v: addr(out, 'one_hot') },
          { t: 'ptr', v: addr(ind, 'one_hot') },
          { t: 'i64', v: n },
          { t: 'i64', v: a.depth },
          on.arg,
          off.arg,
        ],
      );
    },
  );
}
