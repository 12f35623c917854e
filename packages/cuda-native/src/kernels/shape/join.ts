/**
 * Joins and splits along one axis, as cpu-wasm's join.ts: Concat and stack copy each input into its
 * window of the output (dense source, strided destination; the windows are disjoint so the launches
 * never race), SliceChannel, _split_v2 and _backward_Concat copy each window of the input into its
 * output (strided source). Each is one strided copy per input/output whose inner runs are the
 * contiguous trailing block.
 */
import type { OpRegistry, OpReqType } from '@mx/ops';
import { addr, type CudaBlob, type CudaHost } from '../../kernel.js';
import { denseStrides, itemBytes, norm, reg, skip } from './common.js';
import { copyStrided } from './strided.js';

/** Copy the window [start, end) of `axis` of `src` into dense `out`. */
export function takeWindow(
  host: CudaHost,
  op: string,
  src: CudaBlob,
  out: CudaBlob | undefined,
  axis: number,
  start: number,
  end: number,
  req: OpReqType | undefined,
): void {
  if (skip(req, out)) return;
  const o = out as CudaBlob;
  const st = denseStrides(src.shape);
  const shape = [...src.shape];
  shape[axis] = end - start;
  const bytes = itemBytes(src.dtype, op);
  copyStrided(
    host.rt,
    o.dtype,
    shape,
    { ptr: addr(src, op) + start * (st[axis] as number) * bytes, strides: st },
    { ptr: addr(o, op), strides: denseStrides(shape) },
    req as OpReqType,
    op,
  );
}

export function installJoin(registry: OpRegistry, host: CudaHost): void {
  reg<{ dim: number }>(registry, host, 'Concat', (a, inputs, [r], [y]) => {
    if (skip(r, y)) return;
    const out = y as CudaBlob;
    const axis = norm(a.dim, out.shape.length);
    const st = denseStrides(out.shape);
    const bytes = itemBytes(out.dtype, 'Concat');
    let start = 0;
    for (const x of inputs) {
      if (x.size > 0) {
        copyStrided(
          host.rt,
          out.dtype,
          x.shape,
          { ptr: addr(x, 'Concat'), strides: denseStrides(x.shape) },
          { ptr: addr(out, 'Concat') + start * (st[axis] as number) * bytes, strides: st },
          r as OpReqType,
          'Concat',
        );
      }
      start += x.shape[axis] as number;
    }
  });

  reg<{ axis: number }>(registry, host, 'stack', (a, inputs, [r], [y]) => {
    if (skip(r, y)) return;
    const out = y as CudaBlob;
    const axis = norm(a.axis, out.shape.length);
    const st = denseStrides(out.shape);
    const bytes = itemBytes(out.dtype, 'stack');
    const strides = st.filter((_, i) => i !== axis);
    inputs.forEach((x, i) => {
      if (x.size === 0) return;
      copyStrided(
        host.rt,
        out.dtype,
        x.shape,
        { ptr: addr(x, 'stack'), strides: denseStrides(x.shape) },
        { ptr: addr(out, 'stack') + i * (st[axis] as number) * bytes, strides },
        r as OpReqType,
        'stack',
      );
    });
  });

  reg<{ num_outputs: number; axis: number }>(registry, host, 'SliceChannel', (a, [x], req, outputs) => {
    const src = x as CudaBlob;
    const axis = norm(a.axis, src.shape.length);
    const part = (src.shape[axis] as number) / a.num_outputs;
    outputs.forEach((o, i) => {
      takeWindow(host, 'SliceChannel', src, o, axis, i * part, (i + 1) * part, req[i]);
    });
  });

  reg<{ indices: readonly number[]; axis: number; sections: number }>(
    registry,
    host,
    '_split_v2',
    (a, [x], req, outputs) => {
      const src = x as CudaBlob;
      const axis = norm(a.axis, src.shape.length);
      const len = src.shape[axis] as number;
      const starts =
        a.sections > 0
          ? Array.from({ length: a.sections }, (_, i) => Math.floor(len / a.sections) * i)
          : [...a.indices];
      outputs.forEach((o, i) => {
        const start = starts[i] as number;
        const end = i + 1 < starts.length ? (starts[i + 1] as number) : len;
        takeWindow(host, '_split_v2', src, o, axis, start, end, req[i]);
      });
    },
  );

  reg<{ dim: number }>(registry, host, '_backward_Concat', (a, inputs, req, outputs) => {
    const og = inputs[0] as CudaBlob;
    const axis = norm(a.dim, og.shape.length);
    let start = 0;
    outputs.forEach((o, i) => {
      const len = o.shape[axis] as number;
      takeWindow(host, '_backward_Concat', og, o, axis, start, start + len, req[i]);
      start += len;
    });
  });
}
