/**
 * Host-side layout planning for an elementwise launch, as cpu-wasm's compile.ts does it: each
 * input's element strides against the output shape (0 on broadcast dims; incompatible shapes are
 * an MXNetError naming them), then size-1 dims dropped and adjacent dims merged wherever every
 * input walks them contiguously — so most launches are 1-D or 2-D, and the shader's index loop
 * runs over few dims. Shapes never reach the WGSL: they travel in the uniforms.
 */
import { MXNetError, type Shape } from '@mx/base';

export function shapeStr(s: Shape): string {
  return `(${s.join(', ')}${s.length === 1 ? ',' : ''})`;
}

/** Element strides of `shape` broadcast to `out` (0 on broadcast dims). */
export function broadcastStrides(op: string, shape: Shape, out: Shape, all: readonly Shape[]): number[] {
  const n = out.length;
  const pad = n - shape.length;
  const strides = new Array<number>(n).fill(0);
  let s = 1;
  if (pad < 0) throw mismatch(op, all, out);
  for (let d = n - 1; d >= 0; d--) {
    const dim = d >= pad ? (shape[d - pad] as number) : 1;
    const od = out[d] as number;
    if (dim === od) strides[d] = dim === 1 ? 0 : s;
    else if (dim !== 1) throw mismatch(op, all, out);
    s *= dim;
  }
  return strides;
}

function mismatch(op: string, all: readonly Shape[], out: Shape): MXNetError {
  return new MXNetError(
    `operands could not be broadcast together with shapes ${all.map(shapeStr).join(' ')} to ${shapeStr(out)}`,
    {
      op,
      shapes: all,
      device: 'gpu(0)',
      hint: 'dimensions must be equal or 1, aligned from the right',
    },
  );
}

export interface Plan {
  /** Dims, outermost first. */
  readonly dims: number[];
  /** Per input, its stride on each dim. */
  readonly strides: number[][];
}

/** Drop size-1 dims and merge adjacent dims that every input walks contiguously. */
export function collapse(out: Shape, strides: readonly (readonly number[])[]): Plan {
  const dims: number[] = [];
  const st: number[][] = strides.map(() => []);
  for (let d = 0; d < out.length; d++) {
    const size = out[d] as number;
    if (size === 1) continue;
    const last = dims.length - 1;
    if (last >= 0 && strides.every((s, k) => (st[k] as number[])[last] === (s[d] as number) * size)) {
      dims[last] = (dims[last] as number) * size;
      strides.forEach((s, k) => {
        (st[k] as number[])[last] = s[d] as number;
      });
    } else {
      dims.push(size);
      strides.forEach((s, k) => {
        (st[k] as number[]).push(s[d] as number);
      });
    }
  }
  return { dims, strides: st };
}
