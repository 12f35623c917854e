/**
 * Host-side layout planning for strided elementwise launches: each input's element strides against
 * the output shape (0 where it broadcasts; incompatible shapes are an MXNetError naming them), then
 * size-1 dims dropped and neighbouring dims merged where every input walks them contiguously, so
 * most broadcasts become 2-D and the kernel's index loop stays short.
 */
import { MXNetError, type Shape } from '@mx/base';

export function shapeText(s: Shape): string {
  return `(${s.join(', ')}${s.length === 1 ? ',' : ''})`;
}

/** Element strides of `shape` read as `out` (right-aligned; 0 on broadcast dims). */
export function broadcastStrides(op: string, shape: Shape, out: Shape, all: readonly Shape[]): number[] {
  const pad = out.length - shape.length;
  if (pad < 0) throw mismatch(op, all, out);
  const strides: number[] = [];
  let step = 1;
  for (let d = out.length - 1; d >= 0; d--) {
    const dim = d < pad ? 1 : (shape[d - pad] as number);
    if (dim !== out[d] && dim !== 1) throw mismatch(op, all, out);
    strides[d] = dim === 1 ? 0 : step;
    step *= dim;
  }
  return strides;
}

function mismatch(op: string, all: readonly Shape[], out: Shape): MXNetError {
  return new MXNetError(
    `operands could not be broadcast together with shapes ${all.map(shapeText).join(' ')} to ${shapeText(out)}`,
    { op, shapes: all, device: 'gpu', hint: 'dimensions must be equal or 1, aligned from the right' },
  );
}

/** Collapsed dims (outermost first) and each input's stride on them. */
export interface Layout {
  readonly dims: number[];
  readonly strides: number[][];
}

export function collapse(out: Shape, strides: readonly (readonly number[])[]): Layout {
  const dims: number[] = [];
  const st: number[][] = strides.map(() => []);
  out.forEach((size, d) => {
    if (size === 1) return;
    const prev = dims.length - 1;
    const mergeable =
      prev >= 0 && strides.every((s, k) => (st[k] as number[])[prev] === (s[d] as number) * size);
    if (mergeable) {
      dims[prev] = (dims[prev] as number) * size;
      strides.forEach((s, k) => {
        (st[k] as number[])[prev] = s[d] as number;
      });
      return;
    }
    dims.push(size);
    strides.forEach((s, k) => {
      (st[k] as number[]).push(s[d] as number);
    });
  });
  return { dims, strides: st };
}
