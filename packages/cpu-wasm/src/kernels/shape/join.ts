/**
 * cpu-wasm kernels for joins and splits along one axis: Concat and stack copy each input into its
 * window of the output (strided destination), SliceChannel and _split_v2 copy each window of the
 * input into its output (strided source). Each input/output is one strided copy whose inner runs
 * are the contiguous trailing block, so large trailing blocks move with `copyWithin`.
 */
import type { OpRegistry, OpReqType } from '@mx/ops';
import type { CpuWasmRuntime } from '../../runtime.js';
import { addr, type Blob, defineKernel } from './kernel-util.js';
import { copyStrided, dense, denseStrides } from './strided-copy.js';

const norm = (a: number, n: number) => (a < 0 ? a + n : a);

/** Copy `src` (dense) into `out` at index `start` of `axis`, out having `src`'s shape elsewhere. */
function placeInto(
  rt: CpuWasmRuntime,
  src: Blob,
  out: Blob,
  axis: number,
  start: number,
  req: OpReqType,
  outStrides: number[],
): void {
  if (src.size === 0) return;
  const bytes = rt.itemSize(out.dtype);
  copyStrided(
    rt,
    out.dtype,
    src.shape,
    dense(addr(rt, src), src.shape),
    {
      addr: addr(rt, out) + start * (outStrides[axis] as number) * bytes,
      strides: outStrides,
    },
    req,
  );
}

/** Copy the window [start, end) of `axis` of `src` into dense `out`. */
export function takeWindow(
  rt: CpuWasmRuntime,
  src: Blob,
  out: Blob,
  axis: number,
  start: number,
  end: number,
  req: OpReqType,
): void {
  if (out.size === 0) return;
  const st = denseStrides(src.shape);
  const shape = [...src.shape];
  shape[axis] = end - start;
  const bytes = rt.itemSize(src.dtype);
  copyStrided(
    rt,
    src.dtype,
    shape,
    { addr: addr(rt, src) + start * (st[axis] as number) * bytes, strides: st },
    dense(addr(rt, out), shape),
    req,
  );
}

export function installJoin(registry: OpRegistry, rt: CpuWasmRuntime): void {
  defineKernel<{ dim: number }>(registry, 'Concat', (a, inputs, [r], [y]) => {
    const out = y as Blob;
    if (out.size === 0) return;
    const axis = norm(a.dim, out.shape.length);
    const st = denseStrides(out.shape);
    let start = 0;
    for (const x of inputs) {
      placeInto(rt, x, out, axis, start, r as OpReqType, st);
      start += x.shape[axis] as number;
    }
  });

  defineKernel<{ axis: number }>(registry, 'stack', (a, inputs, [r], [y]) => {
    const out = y as Blob;
    if (out.size === 0) return;
    const axis = norm(a.axis, out.shape.length);
    const st = denseStrides(out.shape);
    const bytes = rt.itemSize(out.dtype);
    const strides = st.filter((_, i) => i !== axis);
    inputs.forEach((x, i) => {
      copyStrided(
        rt,
        out.dtype,
        x.shape,
        dense(addr(rt, x), x.shape),
        {
          addr: addr(rt, out) + i * (st[axis] as number) * bytes,
          strides,
        },
        r as OpReqType,
      );
    });
  });

  defineKernel<{ num_outputs: number; axis: number }>(registry, 'SliceChannel', (a, [x], req, outputs) => {
    const src = x as Blob;
    const axis = norm(a.axis, src.shape.length);
    const part = (src.shape[axis] as number) / a.num_outputs;
    outputs.forEach((o, i) => {
      takeWindow(rt, src, o, axis, i * part, (i + 1) * part, req[i] as OpReqType);
    });
  });

  defineKernel<{ indices: readonly number[]; axis: number; sections: number }>(
    registry,
    '_split_v2',
    (a, [x], req, outputs) => {
      const src = x as Blob;
      const axis = norm(a.axis, src.shape.length);
      const len = src.shape[axis] as number;
      const starts =
        a.sections > 0
          ? Array.from({ length: a.sections }, (_, i) => Math.floor(len / a.sections) * i)
          : [...a.indices];
      outputs.forEach((o, i) => {
        const start = starts[i] as number;
        const end = i + 1 < starts.length ? (starts[i + 1] as number) : len;
        takeWindow(rt, src, o, axis, start, end, req[i] as OpReqType);
      });
    },
  );
}
