/**
 * Joins and splits along one axis. Splits (SliceChannel, _split_v2, _backward_Concat) are one
 * plain view per output: the window [start, end) of the axis. Joins (Concat, stack) run one view
 * per input over the span of the output its piece covers, with the join axis in mode 1 (valid only
 * inside the piece) and 'keep' outside — so every launch stays output-indexed (packed bool words
 * are owned by one invocation) and each input is read exactly once.
 */
import type { OpRegistry, OpReqType } from '@mx/ops';
import type { GpuBlob, GpuHost } from '../../kernel.js';
import { denseStrides, norm, reg, skip } from './common.js';
import { plainView } from './layout.js';
import { runView, type ViewDim } from './view.js';

/** Copy the window [start, end) of `axis` of `src` into dense `out`. */
function takeWindow(
  gpu: GpuHost,
  op: string,
  src: GpuBlob,
  out: GpuBlob | undefined,
  axis: number,
  start: number,
  end: number,
  req: OpReqType | undefined,
): void {
  if (skip(req, out)) return;
  const st = denseStrides(src.shape);
  const shape = [...src.shape];
  shape[axis] = end - start;
  runView(gpu.rt, op, src, out as GpuBlob, req as OpReqType, {
    dims: plainView(shape, st),
    offset: start * (st[axis] as number),
  });
}

/**
 * Place dense `piece` (strides `pst`, `len` rows of `axis`) at row `start` of `axis` of `out`.
 */
function place(
  gpu: GpuHost,
  op: string,
  piece: GpuBlob,
  pst: readonly number[],
  len: number,
  out: GpuBlob,
  axis: number,
  start: number,
  req: OpReqType,
): void {
  if (piece.size === 0 || len === 0) return;
  const ost = denseStrides(out.shape);
  const dims: ViewDim[] = out.shape.map((n, i) =>
    i === axis
      ? { n, stride: pst[i] as number, mode: 1, b: start, st: 1, cnt: len }
      : { n, stride: pst[i] as number },
  );
  // The span of output elements the piece touches: first to last element of its box.
  let first = start * (ost[axis] as number);
  let last = (start + len - 1) * (ost[axis] as number);
  out.shape.forEach((n, i) => {
    if (i !== axis) last += (n - 1) * (ost[i] as number);
  });
  if (first > last) first = last;
  runView(gpu.rt, op, piece, out, req, { dims, fill: 'keep', start: first, count: last - first + 1 });
}

export function installJoin(registry: OpRegistry, gpu: GpuHost): void {
  reg<{ dim: number }>(registry, gpu, 'Concat', (a, inputs, [r], [y]) => {
    if (skip(r, y)) return;
    const out = y as GpuBlob;
    const axis = norm(a.dim, out.shape.length);
    let start = 0;
    for (const x of inputs) {
      const len = x.shape[axis] as number;
      place(gpu, 'Concat', x, denseStrides(x.shape), len, out, axis, start, r as OpReqType);
      start += len;
    }
  });

  reg<{ axis: number }>(registry, gpu, 'stack', (a, inputs, [r], [y]) => {
    if (skip(r, y)) return;
    const out = y as GpuBlob;
    const axis = norm(a.axis, out.shape.length);
    inputs.forEach((x, i) => {
      const pst = denseStrides(x.shape);
      pst.splice(axis, 0, 0);
      place(gpu, 'stack', x, pst, 1, out, axis, i, r as OpReqType);
    });
  });

  reg<{ num_outputs: number; axis: number }>(registry, gpu, 'SliceChannel', (a, [x], req, outputs) => {
    const src = x as GpuBlob;
    const axis = norm(a.axis, src.shape.length);
    const part = (src.shape[axis] as number) / a.num_outputs;
    outputs.forEach((o, i) => {
      takeWindow(gpu, 'SliceChannel', src, o, axis, i * part, (i + 1) * part, req[i]);
    });
  });

  reg<{ indices: readonly number[]; axis: number; sections: number }>(
    registry,
    gpu,
    '_split_v2',
    (a, [x], req, outputs) => {
      const src = x as GpuBlob;
      const axis = norm(a.axis, src.shape.length);
      const len = src.shape[axis] as number;
      const starts =
        a.sections > 0
          ? Array.from({ length: a.sections }, (_, i) => Math.floor(len / a.sections) * i)
          : [...a.indices];
      outputs.forEach((o, i) => {
        const start = starts[i] as number;
        const end = i + 1 < starts.length ? (starts[i + 1] as number) : len;
        takeWindow(gpu, '_split_v2', src, o, axis, start, end, req[i]);
      });
    },
  );

  reg<{ dim: number }>(registry, gpu, '_backward_Concat', (a, inputs, req, outputs) => {
    const og = inputs[0] as GpuBlob;
    const axis = norm(a.dim, og.shape.length);
    let start = 0;
    outputs.forEach((o, i) => {
      const len = o.shape[axis] as number;
      takeWindow(gpu, '_backward_Concat', og, o, axis, start, start + len, req[i]);
      start += len;
    });
  });
}
