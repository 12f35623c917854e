/**
 * The value-reduction engine on webgpu (sum, mean, prod, max, min, nansum, nanprod, norm, and the
 * sums behind `_broadcast_backward`): one shader shape for every axis set and size.
 *
 * Layout: a workgroup of 256 invocations is split into G groups of S threads (S a power of two
 * chosen per call from the reduction length, G = 256 / S), one group per output element. Each
 * thread folds a strided slice of the reduced elements sequentially (at most ~32 of them), then the
 * group combines its S partial values as a tree in workgroup memory — pairwise summation, so float
 * sums stay accurate without compensation. S = 1 degenerates to a thread per output (short
 * reductions over many rows); S = 256 is a workgroup per output.
 *
 * Long reductions (more than LMAX elements per output) run in two passes (or more): pass 1 gives
 * each (output, chunk) pair its own group and writes accumulator-typed partials to a scratch buffer;
 * the next pass reduces the partials (no element map, e.g. norm's square) and the last one applies
 * the op's finish (mean's division, norm's sqrt), casts to the output dtype and honours req.
 *
 * Shapes (kept/reduced segments, geometry.ts), offsets, S/G, count and req=add are uniforms, so
 * pipelines depend only on (op, finish, dtypes, pass kind, aliasing).
 */
import { type DTypeName, MXNetError } from '@mx/base';
import { OpReq, type OpReqType } from '@mx/ops';
import type { GpuBlob } from '../../kernel.js';
import { grid1d, type WebGpuRuntime } from '../../runtime.js';
import { bindBlobs, declareArrays, elemOffset, needsF16, paramsDecl } from '../../wgsl.js';
import {
  accType,
  castTo,
  decompose,
  ISNAN_WGSL,
  MAX_SEG,
  nextPow2,
  type ReduceGeometry,
  reduceGeometry,
  type Seg,
  segWords,
} from './geometry.js';

export type RedOp = 'sum' | 'prod' | 'max' | 'min' | 'nansum' | 'nanprod' | 'sumabs' | 'sumsq';
export type Finish = 'none' | 'mean' | 'sqrt';

const WG = 256;
/** Most elements one group folds in one pass (S = 256 threads × 32). */
const LMAX = 8192;
const KEPT_AT = 12;
const RED_AT = KEPT_AT + 2 * MAX_SEG;
const WORDS = RED_AT + 2 * MAX_SEG;

type Acc = 'f32' | 'i32' | 'u32';
const ACC_DTYPE: Record<Acc, DTypeName> = { f32: 'float32', i32: 'int32', u32: 'uint32' };

function identity(op: RedOp, acc: Acc): string {
  if (op === 'prod' || op === 'nanprod') return `${acc}(1)`;
  if (op === 'max')
    return acc === 'f32' ? 'bitcast<f32>(NEG_INF)' : acc === 'i32' ? 'i32(-2147483647) - 1i' : '0u';
  if (op === 'min')
    return acc === 'f32' ? 'bitcast<f32>(POS_INF)' : acc === 'i32' ? '2147483647i' : '0xffffffffu';
  return `${acc}(0)`;
}

function combine(op: RedOp, acc: Acc): string {
  if (op === 'prod' || op === 'nanprod') return 'a * b';
  // NaN propagates (NumPy/MXNet max of a lane with NaN is NaN); WGSL max() leaves NaN unspecified.
  if (op === 'max') return acc === 'f32' ? 'select(select(a, b, b > a), b, isnan32(b))' : 'max(a, b)';
  if (op === 'min') return acc === 'f32' ? 'select(select(a, b, b < a), b, isnan32(b))' : 'min(a, b)';
  return 'a + b';
}

function mapExpr(op: RedOp, acc: Acc): string {
  if (op === 'nansum' && acc === 'f32') return 'select(x, 0.0, isnan32(x))';
  if (op === 'nanprod' && acc === 'f32') return 'select(x, 1.0, isnan32(x))';
  if (op === 'sumabs') return acc === 'u32' ? 'x' : 'abs(x)';
  if (op === 'sumsq') return 'x * x';
  return 'x';
}

function finishExpr(finish: Finish, acc: Acc): string {
  if (finish === 'sqrt') return 'sqrt(f32(res))';
  if (finish !== 'mean') return 'res';
  return acc === 'f32'
    ? 'select(res / f32(pu(8u)), bitcast<f32>(QNAN), pu(8u) == 0u)'
    : `select(res / ${acc}(max(pu(8u), 1u)), ${acc}(0), pu(8u) == 0u)`;
}

interface Pass {
  readonly op: RedOp;
  readonly finish: Finish;
  readonly inDtype: DTypeName;
  /** Output dtype, or null when writing accumulator partials. */
  readonly outDtype: DTypeName | null;
  readonly mapped: boolean;
}

function source(p: Pass, acc: Acc, names: readonly string[], decls: string): string {
  const [inName, outName] = names as [string, string];
  const write =
    p.outDtype === null
      ? `${outName}[idx] = res;`
      : `let val = ${castTo(p.outDtype, finishExpr(p.finish, acc))};
    if (pu(9u) != 0u) { ${outName}[idx] = ${outName}[idx] + val; } else { ${outName}[idx] = val; }`;
  const f16 = needsF16([p.inDtype, ...(p.outDtype === null ? [] : [p.outDtype])]);
  return `${f16 ? 'enable f16;\n' : ''}${paramsDecl(WORDS)}${decls}${ISNAN_WGSL}
fn comb(a: ${acc}, b: ${acc}) -> ${acc} { return ${combine(p.op, acc)}; }
fn mapv(x: ${acc}) -> ${acc} { return ${p.mapped ? mapExpr(p.op, acc) : 'x'}; }
var<workgroup> sh: array<${acc}, ${WG}>;
@compute @workgroup_size(${WG})
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let S = pu(6u);
  let g = lid / S;
  let t = lid - g * S;
  let v = (wid.x + wid.y * nwg.x) * pu(7u) + g;
  let valid = v < pu(2u);
  var acc: ${acc} = ${identity(p.op, acc)};
  if (valid) {
    let C = pu(3u);
    let o = v / C;
    let c = v - o * C;
    var base = pu(1u);
    ${decompose('o', 'pu(10u)', KEPT_AT, 'base')}
    let start = c * pu(4u);
    let end = min(pu(5u), start + pu(4u));
    for (var r = start + t; r < end; r += S) {
      var off = base;
      ${decompose('r', 'pu(11u)', RED_AT, 'off')}
      acc = comb(acc, mapv(${acc}(${inName}[off])));
    }
  }
  sh[lid] = acc;
  workgroupBarrier();
  for (var s = S >> 1u; s > 0u; s = s >> 1u) {
    if (t < s) { sh[lid] = comb(sh[lid], sh[lid + s]); }
    workgroupBarrier();
  }
  if (valid && t == 0u) {
    let res = sh[lid];
    let idx = pu(0u) + v;
    ${write}
  }
}
`;
}

/** One pass: `nVirt = outs * C` groups over `x` (segments `kept`/`red`), writing into `y`. */
function runPass(
  rt: WebGpuRuntime,
  name: string,
  p: Pass,
  x: { buf: GPUBuffer; off: number },
  y: { buf: GPUBuffer; off: number },
  geo: { kept: readonly Seg[]; red: readonly Seg[]; outs: number; R: number; C: number; count: number },
  add: boolean,
): void {
  const acc = accType(p.inDtype);
  const L = geo.C > 1 ? Math.ceil(geo.R / geo.C) : geo.R;
  const S = Math.min(WG, nextPow2(Math.ceil(L / 32)));
  const G = WG / S;
  const nVirt = geo.outs * geo.C;
  const blobs = [
    { ptr: x.buf, dtype: p.inDtype },
    { ptr: y.buf, dtype: p.outDtype ?? ACC_DTYPE[acc] },
  ];
  const bind = bindBlobs(blobs as unknown as GpuBlob[]);
  if (bind.slot[0] === bind.slot[1] && blobs[0]?.dtype !== blobs[1]?.dtype) {
    throw new MXNetError(`${name}: input and output share a buffer with different dtypes`, {
      op: name,
      device: 'gpu(0)',
      hint: 'write the result into a separate array',
    });
  }
  const key = `reduce:${p.op}:${p.finish}:${p.inDtype}:${p.outDtype ?? 'partial'}:${p.mapped ? 'm' : 'u'}:${bind.key}`;
  const entry = rt.pipeline(
    key,
    () => {
      const { decls, names } = declareArrays(bind, [blobs[0]?.dtype, blobs[1]?.dtype] as DTypeName[]);
      return source(p, acc, names, decls);
    },
    WORDS,
  );
  const words = [
    y.off,
    x.off,
    nVirt,
    geo.C,
    L,
    geo.R,
    S,
    G,
    geo.count,
    add ? 1 : 0,
    geo.kept.length,
    geo.red.length,
  ];
  const groups = Math.ceil(nVirt / G);
  rt.dispatch(
    entry,
    bind.buffers,
    [...words, ...segWords(geo.kept), ...segWords(geo.red)],
    grid1d(groups * WG, WG),
  );
}

/**
 * Reduce `x` (viewed with `shape`, dense) over the flagged axes into `y` with req: the shared driver
 * of every value reduction.
 */
export function reduceInto(
  rt: WebGpuRuntime,
  name: string,
  op: RedOp,
  finish: Finish,
  x: GpuBlob,
  shape: readonly number[],
  flags: readonly boolean[],
  y: GpuBlob,
  req: OpReqType,
): void {
  if (req === OpReq.null || y.size === 0 || y.ptr === null) return;
  const g: ReduceGeometry = reduceGeometry(name, shape, flags);
  const R = x.size === 0 || x.ptr === null ? 0 : g.count;
  const outs = y.size;
  const kept = R === 0 ? [] : g.kept;
  const red = R === 0 ? [] : g.red;
  const add = req === OpReq.add;
  const out = { buf: y.ptr, off: elemOffset(y) };
  const final = (inDtype: DTypeName, mapped: boolean): Pass => ({
    op,
    finish,
    inDtype,
    outDtype: y.dtype,
    mapped,
  });
  if (R === 0) {
    // Nothing to read (empty input): the identity, finished (mean of nothing is NaN / 0).
    runPass(rt, name, final(y.dtype, true), out, out, { kept, red, outs, R, C: 1, count: 0 }, add);
    return;
  }
  const input = { buf: x.ptr as GPUBuffer, off: elemOffset(x) };
  let C = R > LMAX ? Math.ceil(R / LMAX) : 1;
  if (C === 1) {
    runPass(rt, name, final(x.dtype, true), input, out, { kept, red, outs, R, C, count: g.count }, add);
    return;
  }
  // Pass 1: partials[o * C + c] over chunk c of output o's elements.
  const accDtype = ACC_DTYPE[accType(x.dtype)];
  const temps: GPUBuffer[] = [];
  let cur = rt.createBuffer(outs * C * 4);
  temps.push(cur);
  const partial = (inDtype: DTypeName, mapped: boolean): Pass => ({
    op,
    finish,
    inDtype,
    outDtype: null,
    mapped,
  });
  runPass(
    rt,
    name,
    partial(x.dtype, true),
    input,
    { buf: cur, off: 0 },
    { kept, red, outs, R, C, count: g.count },
    false,
  );
  // Further passes over the partials: kept [outs @ n], reduced [n @ 1].
  let n = C;
  for (;;) {
    const segs = { kept: outs > 1 ? [{ size: outs, stride: n }] : [], red: [{ size: n, stride: 1 }] };
    C = n > LMAX ? Math.ceil(n / LMAX) : 1;
    if (C === 1) {
      runPass(
        rt,
        name,
        final(accDtype, false),
        { buf: cur, off: 0 },
        out,
        { ...segs, outs, R: n, C, count: g.count },
        add,
      );
      break;
    }
    const next = rt.createBuffer(outs * C * 4);
    temps.push(next);
    runPass(
      rt,
      name,
      partial(accDtype, false),
      { buf: cur, off: 0 },
      { buf: next, off: 0 },
      { ...segs, outs, R: n, C, count: g.count },
      false,
    );
    cur = next;
    n = C;
  }
  for (const t of temps) rt.release(t);
}
