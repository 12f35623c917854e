/**
 * Gradients that sum several output positions into one input position, written as gathers (each
 * output element loops over its preimages), never as racy float scatter-adds (WebGPU has no float
 * atomics):
 * - `_backward_tile`, `_backward_repeat`: ograd seen as (r0, d0, r1, d1, ...) / (.., d, r, ..) and
 *   summed over the copy axes (a strided reduction with a compensated float sum);
 * - `_backward_Pad` edge/reflect: the padding folded back one padded axis at a time — row t of the
 *   interior gathers the rows the forward copied from it (edge: one contiguous run; reflect: up to
 *   three rows) — then the interior read out (constant mode is only that crop).
 */
import type { DTypeName } from '@mx/base';
import type { OpRegistry, OpReqType } from '@mx/ops';
import { OpReq } from '@mx/ops';
import type { GpuBlob, GpuHost } from '../../kernel.js';
import type { WebGpuRuntime } from '../../runtime.js';
import { bindBlobs, elemOffset, load, paramsDecl, wgslType } from '../../wgsl.js';
import {
  denseStrides,
  detach,
  dispatchWriter,
  header,
  KP,
  kernelError,
  NUMERIC,
  norm,
  reg,
  skip,
  writerMain,
  zeroOf,
} from './common.js';
import { plainView } from './layout.js';
import { MAX_DIMS, mergeDims, runView } from './view.js';

const D0 = 16;
const SUM_WORDS = D0 + 4 * MAX_DIMS;

function decls(dtype: DTypeName, alias: boolean): string {
  const st = wgslType(dtype).storage;
  return `@group(0) @binding(1) var<storage, read_write> b0: array<${st}>;\n${
    alias ? '' : `@group(0) @binding(2) var<storage, read_write> b1: array<${st}>;\n`
  }`;
}

/** The accumulation loop body over `x`: Kahan-compensated for floats. */
function accumulate(dtype: DTypeName): { init: string; add: (x: string) => string; result: string } {
  const T = wgslType(dtype).scalar;
  const z = zeroOf(dtype);
  if (T === 'f32' || T === 'f16')
    return {
      init: `var acc = ${z}; var comp = ${z};`,
      add: (x) => `{ let y = (${x}) - comp; let t = acc + y; comp = (t - acc) - y; acc = t; }`,
      result: 'acc',
    };
  return { init: `var acc = ${z};`, add: (x) => `acc += ${x};`, result: 'acc' };
}

function sumSource(dtype: DTypeName, add: boolean, alias: boolean): string {
  const src = alias ? 'b0' : 'b1';
  const a = accumulate(dtype);
  return `${header([dtype])}${paramsDecl(SUM_WORDS)}${decls(dtype, alias)}
fn val(e: u32) -> ${wgslType(dtype).scalar} {
  var r = e;
  var base = pi(${KP + 2}u);
  for (var d = pu(${KP}u); d > 0u; d--) {
    let q = ${D0}u + (d - 1u) * 2u;
    let n = pu(q);
    base += i32(r % n) * pi(q + 1u);
    r = r / n;
  }
  ${a.init}
  let nr = pu(${KP + 1}u);
  for (var j = 0u; j < pu(${KP + 3}u); j++) {
    var rr = j;
    var s = base;
    for (var d = nr; d > 0u; d--) {
      let q = ${D0 + 2 * MAX_DIMS}u + (d - 1u) * 2u;
      let n = pu(q);
      s += i32(rr % n) * pi(q + 1u);
      rr = rr / n;
    }
    ${a.add(load(src, dtype, 'u32(s)'))}
  }
  return ${a.result};
}
${writerMain(dtype, add, 'none', 'b0')}`;
}

/** out = Σ over the `flags` axes of `g` viewed as dense `shape` (out has the kept axes, in order). */
function sumAxes(
  rt: WebGpuRuntime,
  op: string,
  g: GpuBlob,
  shape: readonly number[],
  flags: readonly boolean[],
  out: GpuBlob,
  req: OpReqType,
): void {
  const st = denseStrides(shape);
  const keep = mergeDims(shape.map((n, i) => ({ n, stride: st[i] as number })).filter((_, i) => !flags[i]));
  const red = mergeDims(shape.map((n, i) => ({ n, stride: st[i] as number })).filter((_, i) => flags[i]));
  const R = shape.reduce((acc, n, i) => (flags[i] ? acc * n : acc), 1);
  if (keep.length > MAX_DIMS || red.length > MAX_DIMS)
    throw kernelError(op, `too many axes (${shape.length}) for the webgpu sum kernel`, {
      shapes: [[...g.shape]],
    });
  const empty = g.ptr === null || g.size === 0;
  const { blob: s, done } = empty ? { blob: out, done: () => {} } : detach(rt, g, out);
  const bind = bindBlobs([out, s]);
  const alias = bind.buffers.length === 1;
  const add = req === OpReq.add;
  const key = `shape-sum:${out.dtype}:${add ? 'add' : 'w'}:${alias ? 'a' : ''}`;
  const entry = rt.pipeline(key, () => sumSource(out.dtype, add, alias), SUM_WORDS);
  const kp = new Array<number>(SUM_WORDS - KP).fill(0);
  kp[0] = keep.length;
  kp[1] = red.length;
  kp[2] = empty ? 0 : elemOffset(s);
  kp[3] = empty ? 0 : R;
  keep.forEach((d, i) => {
    kp[D0 - KP + 2 * i] = d.n;
    kp[D0 - KP + 2 * i + 1] = d.stride;
  });
  red.forEach((d, i) => {
    kp[D0 + 2 * MAX_DIMS - KP + 2 * i] = d.n;
    kp[D0 + 2 * MAX_DIMS - KP + 2 * i + 1] = d.stride;
  });
  dispatchWriter(rt, entry, bind.buffers, out, 0, out.size, 0, kp);
  done();
}

const FOLD_WORDS = 16;

function foldSource(dtype: DTypeName, add: boolean, alias: boolean): string {
  const ld = (c: string) => load(alias ? 'b0' : 'b1', dtype, `base + (${c}) * B`);
  return `${header([dtype])}${paramsDecl(FOLD_WORDS)}${decls(dtype, alias)}
fn val(e: u32) -> ${wgslType(dtype).scalar} {
  let B = pu(8u); let L = pu(9u); let P = pu(10u); let lo = pu(11u); let hi = pu(12u);
  let bb = e % B;
  let r = e / B;
  let t = r % L;
  let base = pu(14u) + (r / L) * P * B + bb;
  var acc = ${zeroOf(dtype)};
  if (pu(13u) == 0u) {
    var c0 = t + lo;
    var c1 = t + lo + 1u;
    if (t == 0u) { c0 = 0u; }
    if (t + 1u == L) { c1 = lo + L + hi; }
    for (var c = c0; c < c1; c++) { acc += ${ld('c')}; }
  } else {
    acc += ${ld('t + lo')};
    if (t >= 1u && t <= lo) { acc += ${ld('lo - t')}; }
    if (t + 1u + hi >= L && t + 2u <= L) { acc += ${ld('lo + 2u * L - 2u - t')}; }
  }
  return acc;
}
${writerMain(dtype, add, 'none', 'b0')}`;
}

function padBackward(
  rt: WebGpuRuntime,
  og: GpuBlob,
  out: GpuBlob,
  req: OpReqType,
  mode: string,
  pw: readonly number[],
): void {
  const n = out.shape.length;
  const ost = denseStrides(og.shape);
  const crop = (src: GpuBlob, st: readonly number[], offset: number) =>
    runView(rt, '_backward_Pad', src, out, req, { dims: plainView(out.shape, st), offset });
  const axes = Array.from({ length: n }, (_, i) => i).filter(
    (i) => (pw[2 * i] as number) + (pw[2 * i + 1] as number) > 0,
  );
  if (mode === 'constant' || axes.length === 0 || og.size === 0) {
    crop(
      og,
      ost,
      Array.from({ length: n }, (_, i) => (pw[2 * i] as number) * (ost[i] as number)).reduce(
        (a, b) => a + b,
        0,
      ),
    );
    return;
  }
  const add = req === OpReq.add;
  const detached = detach(rt, og, out);
  let cur: GpuBlob = detached.blob;
  const scratch: GPUBuffer[] = [];
  axes.forEach((k, j) => {
    const shape = [...cur.shape];
    const L = out.shape[k] as number;
    const P = shape[k] as number;
    shape[k] = L;
    const last = j === axes.length - 1;
    let dst: GpuBlob;
    if (last) dst = out;
    else {
      const size = shape.reduce((a, b) => a * b, 1);
      const buf = rt.createBuffer(size * wgslType(out.dtype).bytes);
      scratch.push(buf);
      dst = { ptr: buf, byteOffset: 0, shape, dtype: out.dtype, size };
    }
    const a = last && add;
    const bind = bindBlobs([dst, cur]);
    const alias = bind.buffers.length === 1;
    const entry = rt.pipeline(
      `shape-padfold:${out.dtype}:${a ? 'add' : 'w'}:${alias ? 'a' : ''}`,
      () => foldSource(out.dtype, a, alias),
      FOLD_WORDS,
    );
    const B = shape.slice(k + 1).reduce((x, y) => x * y, 1);
    dispatchWriter(rt, entry, bind.buffers, dst, 0, dst.size, 0, [
      B,
      L,
      P,
      pw[2 * k] as number,
      pw[2 * k + 1] as number,
      mode === 'edge' ? 0 : 1,
      elemOffset(cur),
    ]);
    cur = dst;
  });
  for (const b of scratch) rt.release(b);
  detached.done();
}

export function installSum(registry: OpRegistry, gpu: GpuHost): void {
  reg<{ reps: readonly number[] }>(
    registry,
    gpu,
    '_backward_tile',
    (a, [g], [r], [y]) => {
      if (skip(r, y)) return;
      const out = y as GpuBlob;
      const d = out.shape;
      const n = Math.max(d.length, a.reps.length);
      const dims = Array.from({ length: n }, (_, i) =>
        i < n - d.length ? 1 : (d[i - (n - d.length)] as number),
      );
      const reps = Array.from({ length: n }, (_, i) =>
        i < n - a.reps.length ? 1 : (a.reps[i - (n - a.reps.length)] as number),
      );
      const shape = dims.flatMap((x, i) => [reps[i] as number, x]);
      const flags = dims.flatMap(() => [true, false]);
      sumAxes(gpu.rt, '_backward_tile', g as GpuBlob, shape, flags, out, r as OpReqType);
    },
    NUMERIC,
  );

  reg<{ repeats: number; axis: number | null }>(
    registry,
    gpu,
    '_backward_repeat',
    (a, [g], [r], [y]) => {
      if (skip(r, y)) return;
      const out = y as GpuBlob;
      const d = out.shape;
      let shape: number[];
      let flags: boolean[];
      if (a.axis === null) {
        shape = [out.size, a.repeats];
        flags = [false, true];
      } else {
        const ax = norm(a.axis, d.length);
        shape = [...d.slice(0, ax + 1), a.repeats, ...d.slice(ax + 1)];
        flags = shape.map((_, i) => i === ax + 1);
      }
      sumAxes(gpu.rt, '_backward_repeat', g as GpuBlob, shape, flags, out, r as OpReqType);
    },
    NUMERIC,
  );

  reg<{ mode: string; pad_width: readonly number[] }>(
    registry,
    gpu,
    '_backward_Pad',
    (a, [g], [r], [y]) => {
      if (skip(r, y)) return;
      padBackward(gpu.rt, g as GpuBlob, y as GpuBlob, r as OpReqType, a.mode, a.pad_width);
    },
    NUMERIC,
  );
}
