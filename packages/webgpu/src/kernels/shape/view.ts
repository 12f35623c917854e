/**
 * The strided-view engine most shape ops reduce to: out[e] = src[srcOff + Σ_d t_d * stride_d],
 * where e runs over a dense output viewed as `dims` (row-major) and t_d is the output coordinate
 * c_d mapped per axis:
 *   mode 0  t = c                              (transpose, slice, reverse, broadcast, tile, repeat)
 *   mode 1  t = (c - b) / st, must divide and land in [0, cnt)  (Concat pieces, slice gradients,
 *           Pad constant: outside → fill value or untouched)
 *   mode 2  t = clamp(c - b, 0, cnt - 1)       (Pad edge)
 *   mode 3  t = reflect(c - b) into [0, cnt)   (Pad reflect)
 * plus an optional diagonal coupling (valid only where c_B - c_A = k: diag and its gradient).
 * Shapes, strides and modes live in the uniforms, so one pipeline per dtype / req / fill mode
 * (and "plain" = every axis mode 0, which skips the checks) serves every call. Size-1 axes are
 * dropped and axes contiguous in the source merged before the launch, so most views are 1-3 dims.
 */
import { type DTypeName, MXNetError } from '@mx/base';
import { OpReq, type OpReqType } from '@mx/ops';
import type { GpuBlob } from '../../kernel.js';
import type { WebGpuRuntime } from '../../runtime.js';
import { bindBlobs, elemOffset, load, paramsDecl, wgslType } from '../../wgsl.js';
import { copyBytes } from '../copy/bytes.js';
import { detach, dispatchWriter, type FillMode, header, KP, writerMain, zeroOf } from './common.js';

/** Most axes a view may have after merging. */
export const MAX_DIMS = 16;
const DIM0 = 16;
const WORDS = DIM0 + 6 * MAX_DIMS;
const NONE = 0xffffffff;

export interface ViewDim {
  /** Output extent of this axis. */
  readonly n: number;
  /** Source stride in elements (any sign) per unit of t. */
  readonly stride: number;
  readonly mode?: 0 | 1 | 2 | 3;
  readonly b?: number;
  readonly st?: number;
  readonly cnt?: number;
}

export interface ViewSpec {
  readonly dims: readonly ViewDim[];
  /** Element offset into `src` of t = 0 on every axis. */
  readonly offset?: number;
  /** Output axes A, B and k: elements off the diagonal c_B - c_A = k are invalid. */
  readonly diag?: { readonly a: number; readonly b: number; readonly k: number };
  /** Invalid elements: a fill value, or 'keep' (untouched). Needed when any axis is mode ≥ 1. */
  readonly fill?: number | 'keep';
  /** The output window [start, start + count) (default: the whole output). */
  readonly start?: number;
  readonly count?: number;
}

interface Dim {
  n: number;
  stride: number;
  mode: number;
  b: number;
  st: number;
  cnt: number;
  pinned: boolean;
}

/** Merge plain (n, stride) axes: size-1 axes dropped, axes contiguous in the source merged. */
export function mergeDims(dims: readonly { n: number; stride: number }[]): { n: number; stride: number }[] {
  return simplify(dims.map((d) => ({ ...d, mode: 0, b: 0, st: 1, cnt: d.n, pinned: false }))).map((d) => ({
    n: d.n,
    stride: d.stride,
  }));
}

/** Drop size-1 plain axes; merge neighbouring plain axes contiguous in the source. */
function simplify(dims: Dim[]): Dim[] {
  const out: Dim[] = [];
  for (let i = dims.length - 1; i >= 0; i--) {
    const x = dims[i] as Dim;
    if (x.n === 1 && x.mode === 0 && !x.pinned) continue;
    const inner = out[0];
    if (
      inner !== undefined &&
      x.mode === 0 &&
      inner.mode === 0 &&
      !x.pinned &&
      !inner.pinned &&
      x.stride === inner.stride * inner.n
    ) {
      inner.n *= x.n;
    } else out.unshift({ ...x });
  }
  return out;
}

function source(
  dtype: DTypeName,
  plain: boolean,
  diag: boolean,
  fill: FillMode,
  add: boolean,
  alias: boolean,
) {
  const out = 'b0';
  const src = alias ? 'b0' : 'b1';
  const st = wgslType(dtype).storage;
  const decls = `@group(0) @binding(1) var<storage, read_write> b0: array<${st}>;\n${
    alias ? '' : `@group(0) @binding(2) var<storage, read_write> b1: array<${st}>;\n`
  }`;
  const T = wgslType(dtype).scalar;
  const bad = `{ ok = false; return ${zeroOf(dtype)}; }`;
  const general = plain
    ? `    s += i32(c) * pi(q + 1u);`
    : `    let mode = pu(q + 5u);
    var t = i32(c);
    if (mode == 1u) {
      let d0 = t - pi(q + 2u);
      let stp = pi(q + 3u);
      if (d0 % stp != 0) ${bad}
      t = d0 / stp;
      if (t < 0 || t >= pi(q + 4u)) ${bad}
    } else if (mode == 2u) {
      t = clamp(t - pi(q + 2u), 0, pi(q + 4u) - 1);
    } else if (mode == 3u) {
      let L = pi(q + 4u);
      t = t - pi(q + 2u);
      if (t < 0) { t = -t; }
      if (t >= L) { t = 2 * (L - 1) - t; }
      t = clamp(t, 0, L - 1);
    }
${diag ? '    if (d - 1u == pu(10u)) { ca = i32(c); }\n    if (d - 1u == pu(11u)) { cb = i32(c); }\n' : ''}    s += t * pi(q + 1u);`;
  return `${header([dtype])}${paramsDecl(WORDS)}${decls}
fn val(e: u32) -> ${T} {
  var r = e;
  var s = pi(${KP + 1}u);
  var ca = 0i;
  var cb = 0i;
  for (var d = pu(${KP}u); d > 0u; d--) {
    let q = ${DIM0}u + (d - 1u) * 6u;
    let n = pu(q);
    let c = r % n;
    r = r / n;
${general}
  }
${diag ? `  if (cb - ca != pi(12u)) ${bad}\n` : ''}  return ${load(src, dtype, 'u32(s)')};
}
${writerMain(dtype, add, fill, out)}`;
}

/**
 * Write (req write/inplace) or accumulate (req add) the view `spec` of `src` into `out`.
 * `src` may be null-sized when every element is invalid (a fill).
 */
export function runView(
  rt: WebGpuRuntime,
  op: string,
  src: GpuBlob,
  out: GpuBlob,
  req: OpReqType,
  spec: ViewSpec,
): void {
  if (req === OpReq.null || out.size === 0 || out.ptr === null) return;
  const start = spec.start ?? 0;
  const count = spec.count ?? out.size;
  if (count <= 0) return;
  const add = req === OpReq.add;
  const pinned = new Set(spec.diag === undefined ? [] : [spec.diag.a, spec.diag.b]);
  const full: Dim[] = spec.dims.map((d, i) => {
    const b = d.b ?? 0;
    const st = d.st ?? 1;
    const cnt = d.cnt ?? d.n;
    // A mode-1/2/3 axis that maps c to itself is plain.
    const mode = b === 0 && st === 1 && cnt === d.n ? 0 : (d.mode ?? 0);
    return { n: d.n, stride: d.stride, mode, b, st, cnt, pinned: pinned.has(i) || mode !== 0 };
  });
  if (full.some((d) => d.n === 0)) return;
  // Re-locate the diagonal axes after simplification (pinned axes are kept, in order).
  const tagged = full.map((d, i) => ({ ...d, tag: i }));
  const dims = simplify(tagged) as (Dim & { tag: number })[];
  if (dims.length > MAX_DIMS) {
    throw new MXNetError(`a view of ${dims.length} axes exceeds the webgpu limit of ${MAX_DIMS}`, {
      op,
      shapes: [out.shape, src.shape],
      device: 'gpu(0)',
      hint: 'reshape to fewer axes or run this op on cpu(0)',
    });
  }
  const plain = dims.every((d) => d.mode === 0) && spec.diag === undefined;
  let fill: FillMode = 'none';
  let fillValue = 0;
  if (!plain) {
    if (spec.fill === undefined || spec.fill === 'keep') fill = 'keep';
    else if (add && spec.fill === 0) fill = 'keep';
    else {
      fill = 'fill';
      fillValue = spec.fill;
    }
  }
  // An empty source is never read (every element is invalid): bind the output in its place.
  const empty = src.ptr === null || src.size === 0;
  const { blob: s, done } = empty ? { blob: out, done: () => {} } : detach(rt, src, out);
  const bind = bindBlobs([out, s]);
  const alias = bind.buffers.length === 1;
  const diag = spec.diag !== undefined;
  const key = `shape-view:${out.dtype}:${plain ? 'p' : 'g'}:${diag ? 'd' : ''}:${fill}:${add ? 'add' : 'w'}:${alias ? 'a' : ''}`;
  const entry = rt.pipeline(key, () => source(out.dtype, plain, diag, fill, add, alias), WORDS);
  const kp: number[] = new Array(DIM0 - KP + 6 * dims.length).fill(0);
  kp[0] = dims.length;
  kp[1] = empty ? 0 : elemOffset(s) + (spec.offset ?? 0);
  const find = (tag: number) => dims.findIndex((d) => d.tag === tag);
  kp[2] = diag ? find(spec.diag?.a as number) : NONE;
  kp[3] = diag ? find(spec.diag?.b as number) : NONE;
  kp[4] = spec.diag?.k ?? 0;
  dims.forEach((d, i) => {
    const q = DIM0 - KP + 6 * i;
    kp[q] = d.n;
    kp[q + 1] = d.stride;
    kp[q + 2] = d.b;
    kp[q + 3] = d.st;
    kp[q + 4] = d.cnt;
    kp[q + 5] = d.mode;
  });
  dispatchWriter(rt, entry, bind.buffers, out, start, count, fillValue, kp);
  done();
}

/** Dense copy of `src` into `out` (same element count) honouring req; nothing when in place. */
export function copyDense(rt: WebGpuRuntime, op: string, src: GpuBlob, out: GpuBlob, req: OpReqType): void {
  if (req === OpReq.null || out.size === 0) return;
  if (src.ptr === out.ptr && src.byteOffset === out.byteOffset && req !== OpReq.add) return;
  const bytes = out.size * wgslType(out.dtype).bytes;
  if (req !== OpReq.add && src.ptr !== null && out.ptr !== null) {
    const [a, b] = [src.byteOffset, out.byteOffset];
    if (src.ptr !== out.ptr || a + bytes <= b || b + bytes <= a) {
      copyBytes(rt, out.ptr, b, src.ptr, a, bytes);
      return;
    }
  }
  runView(rt, op, src, out, req, { dims: [{ n: out.size, stride: 1 }] });
}
