/**
 * Index-driven kernels, all output-indexed (writer in common.ts), indices of any stored dtype read
 * as truncated integers (float NaN → 0) and resolved by mode (clip clamps, wrap takes the index
 * modulo the axis length) exactly like cpu-wasm. `run` serves:
 * - take: out[o, i, j] = data[o, idx[i], j] (registered in take.ts with its raise check);
 * - pick: out[o, j] = data[o, idx[o, j], j];  one_hot: (idx[i] == d) ? on : off;
 * - `_backward_pick`: each data position has at most one preimage: out[o, m, j] = og[o, j] when
 *   idx[o, j] resolves to m, else 0;
 * - `_backward_take` with few indices: out[o, k, j] sums og[o, i, j] over every i resolving to k
 *   by scanning the index list (take.ts sorts instead when there are many).
 */
import type { DTypeName } from '@mx/base';
import { type OpRegistry, OpReq, type OpReqType } from '@mx/ops';
import type { GpuBlob, GpuHost } from '../../kernel.js';
import type { WebGpuRuntime } from '../../runtime.js';
import { bindBlobs, declareArrays, elemOffset, load, paramsDecl, wgslType } from '../../wgsl.js';
import {
  detach,
  dispatchWriter,
  header,
  NUMERIC,
  norm,
  prod,
  reg,
  skip,
  writerMain,
  zeroOf,
} from './common.js';

const WORDS = 16;
type Kind = 'take' | 'pick' | 'one_hot' | 'bpick' | 'btake';

/** WGSL `fn idx(p: u32) -> i32` (saturating raw index) and `fn res(p, K, mode) -> i32`. */
export function indexFns(name: string, dtype: DTypeName): string {
  const s = wgslType(dtype).scalar;
  const v = load(name, dtype, 'pu(9u) + p');
  if (s === 'f32' || s === 'f16')
    return `fn idx(p: u32) -> i32 { let x = trunc(f32(${v})); if (x != x) { return 0; } return i32(clamp(x, -2147483648.0, 2147483520.0)); }
fn res(p: u32, K: u32, mode: u32) -> i32 {
  var x = trunc(f32(${v}));
  if (x != x) { x = 0.0; }
  let k = f32(K);
  if (mode == 1u) {
    if (abs(x) < 16777216.0) { let j = i32(x) % i32(K); return select(j, j + i32(K), j < 0); }
    return i32(clamp(x - floor(x / k) * k, 0.0, k - 1.0));
  }
  return i32(clamp(x, 0.0, k - 1.0));
}
`;
  if (s === 'i32')
    return `fn idx(p: u32) -> i32 { return ${v}; }
fn res(p: u32, K: u32, mode: u32) -> i32 {
  let x = ${v};
  if (mode == 1u) { let j = x % i32(K); return select(j, j + i32(K), j < 0); }
  return clamp(x, 0, i32(K) - 1);
}
`;
  return `fn idx(p: u32) -> i32 { return i32(min(${v}, 2147483647u)); }
fn res(p: u32, K: u32, mode: u32) -> i32 {
  let x = ${v};
  if (mode == 1u) { return i32(x % K); }
  return i32(min(x, K - 1u));
}
`;
}

/** val() of each kind. Params: 8 mode, 9 idx offset, 10 data/og offset, 11 outer, 12 K, 13 inner, 14 N. */
function body(kind: Kind, dtype: DTypeName, data: string): string {
  const ld = (i: string) => load(data, dtype, `pu(10u) + ${i}`);
  const T = wgslType(dtype).scalar;
  switch (kind) {
    case 'take':
      return `let inner = pu(13u); let N = pu(14u); let K = pu(12u);
  let j = e % inner; let r = e / inner; let i = r % N; let o = r / N;
  let k = u32(res(i, K, pu(8u)));
  return ${ld('(o * K + k) * inner + j')};`;
    case 'pick':
      return `let inner = pu(13u); let K = pu(12u);
  let j = e % inner; let o = e / inner;
  let k = u32(res(e, K, pu(8u)));
  return ${ld('(o * K + k) * inner + j')};`;
    case 'one_hot':
      return `let depth = pu(12u);
  let d = i32(e % depth);
  if (idx(e / depth) != d) { ok = false; }
  return ${T === 'f16' ? 'f16(pf(10u))' : `bitcast<${T}>(pu(10u))`};`;
    case 'bpick':
      return `let inner = pu(13u); let K = pu(12u);
  let j = e % inner; let r = e / inner; let m = r % K; let o = r / K;
  let p = o * inner + j;
  if (u32(res(p, K, pu(8u))) != m) { ok = false; return ${zeroOf(dtype)}; }
  return ${ld('p')};`;
    case 'btake': {
      const f = T === 'f32';
      return `let inner = pu(13u); let N = pu(14u); let K = pu(12u);
  let j = e % inner; let r = e / inner; let k = r % K; let o = r / K;
  var acc = ${zeroOf(dtype)};${f ? ' var comp = 0.0f;' : ''}
  for (var i = 0u; i < N; i++) {
    if (u32(res(i, K, pu(8u))) == k) {
      let x = ${ld('(o * N + i) * inner + j')};
      ${f ? '{ let y = x - comp; let t = acc + y; comp = (t - acc) - y; acc = t; }' : 'acc += x;'}
    }
  }
  return acc;`;
    }
  }
}

function source(
  kind: Kind,
  dtype: DTypeName,
  idxType: DTypeName,
  add: boolean,
  names: string[],
  decls: string,
) {
  const fill = kind === 'one_hot' ? 'fill' : kind === 'bpick' ? (add ? 'keep' : 'fill') : 'none';
  return `${header([dtype, idxType])}${paramsDecl(WORDS)}${decls}${indexFns(names[2] as string, idxType)}
fn val(e: u32) -> ${wgslType(dtype).scalar} {
  ${body(kind, dtype, names[1] as string)}
}
${writerMain(dtype, add, fill, names[0] as string)}`;
}

export interface Geometry {
  mode: number;
  outer: number;
  K: number;
  inner: number;
  N: number;
  fill?: number;
  on?: number;
}

export function run(
  rt: WebGpuRuntime,
  kind: Kind,
  data: GpuBlob | null,
  ind: GpuBlob,
  out: GpuBlob,
  req: OpReqType,
  g: Geometry,
) {
  const empty = data === null || data.size === 0 || data.ptr === null;
  const dd = empty ? { blob: out, done: () => {} } : detach(rt, data, out);
  // An empty index array is never read (N = 0): bind the output in its place.
  const noIdx = ind.ptr === null || ind.size === 0;
  const di = noIdx ? { blob: out, done: () => {} } : detach(rt, ind, out);
  const idxType = di.blob.dtype;
  // one_hot reads no data: bind only what the shader uses ('auto' layouts drop unused bindings).
  const oneHot = kind === 'one_hot';
  const bind = bindBlobs(oneHot ? [out, di.blob] : [out, dd.blob, di.blob]);
  const decl = declareArrays(bind, oneHot ? [out.dtype, idxType] : [out.dtype, out.dtype, idxType]);
  const { decls } = decl;
  const names = oneHot ? [decl.names[0] as string, '', decl.names[1] as string] : decl.names;
  const add = req === OpReq.add;
  const key = `shape-${kind}:${out.dtype}:${idxType}:${add ? 'add' : 'w'}:${bind.key}`;
  const entry = rt.pipeline(key, () => source(kind, out.dtype, idxType, add, names, decls), WORDS);
  const onBits = kind === 'one_hot' ? new Uint32Array(1) : null;
  if (onBits !== null) {
    const t = wgslType(out.dtype).scalar;
    const on = g.on ?? 1;
    if (t === 'f32' || t === 'f16') new Float32Array(onBits.buffer)[0] = on;
    else if (wgslType(out.dtype).packed === 4) onBits[0] = on !== 0 && !Number.isNaN(on) ? 1 : 0;
    else onBits[0] = Number.isFinite(on) ? Math.trunc(on) >>> 0 : 0;
  }
  const dataOff = empty ? 0 : elemOffset(dd.blob);
  dispatchWriter(rt, entry, bind.buffers, out, 0, out.size, g.fill ?? 0, [
    g.mode,
    elemOffset(di.blob),
    onBits !== null ? (onBits[0] as number) : dataOff,
    g.outer,
    g.K,
    g.inner,
    g.N,
  ]);
  dd.done();
  di.done();
}

export function installGather(registry: OpRegistry, gpu: GpuHost): void {
  reg<{ axis: number | null; mode: string }>(registry, gpu, 'pick', (a, [x, i], [r], [y]) => {
    if (skip(r, y)) return;
    const data = x as GpuBlob;
    const axis = norm(a.axis ?? -1, data.shape.length);
    run(gpu.rt, 'pick', data, i as GpuBlob, y as GpuBlob, r as OpReqType, {
      mode: a.mode === 'wrap' ? 1 : 0,
      outer: prod(data.shape, 0, axis),
      K: data.shape[axis] as number,
      inner: prod(data.shape, axis + 1),
      N: 0,
    });
  });

  reg<{ depth: number; on_value: number; off_value: number }>(
    registry,
    gpu,
    'one_hot',
    (a, [i], [r], [y]) => {
      if (skip(r, y)) return;
      run(gpu.rt, 'one_hot', null, i as GpuBlob, y as GpuBlob, r as OpReqType, {
        mode: 0,
        outer: 0,
        K: a.depth,
        inner: 0,
        N: 0,
        fill: a.off_value,
        on: a.on_value,
      });
    },
  );

  reg<{ axis: number | null; mode: string }>(
    registry,
    gpu,
    '_backward_pick',
    (a, [g, i], [r], [y]) => {
      if (skip(r, y)) return;
      const out = y as GpuBlob;
      const axis = norm(a.axis ?? -1, out.shape.length);
      run(gpu.rt, 'bpick', g as GpuBlob, i as GpuBlob, out, r as OpReqType, {
        mode: a.mode === 'wrap' ? 1 : 0,
        outer: prod(out.shape, 0, axis),
        K: out.shape[axis] as number,
        inner: prod(out.shape, axis + 1),
        N: 0,
      });
    },
    NUMERIC,
  );
}
