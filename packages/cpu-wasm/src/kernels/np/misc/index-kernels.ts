/**
 * cpu-wasm kernels of the np index helpers: `_npi_tril_indices` (row-major pairs of the lower
 * triangle), `_npi_diag_indices_from` (row d is 0..n-1 for each axis d), `_unravel_index` (C-order
 * coordinates, NumPy's out-of-bounds error, checked before anything is written) and
 * `_npi_fill_diagonal` (a copy with every `step`-th element up to `end` set to the cycled values:
 * MXNet's kernel, `step` = 1 + Σ of the cumulative products of the axes, `end` = n² columns for
 * an unwrapped 2-D matrix).
 */
import { MXNetError } from '@mx/base';
import type { OpContext, OpRegistry, OpReqType, TBlob } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { read, write } from './io.js';

type Compute<A> = (
  a: A,
  ctx: OpContext,
  i: readonly TBlob[],
  req: readonly OpReqType[],
  o: readonly TBlob[],
) => void;

export function installIndexKernels(registry: OpRegistry, rt: CpuWasmRuntime): void {
  const def = <A>(name: string, compute: Compute<A>) =>
    registry.registerKernel<A & Record<string, unknown>>(name, 'cpu-wasm', { compute: compute as never });

  def<{ n: number; k: number; m: number }>('_npi_tril_indices', (a, _c, _i, req, o) => {
    const rows: number[] = [];
    const cols: number[] = [];
    for (let i = 0; i < a.n; i++)
      for (let j = 0; j < Math.min(a.m, i + a.k + 1); j++) {
        rows.push(i);
        cols.push(j);
      }
    write(rt, '_npi_tril_indices', o[0] as TBlob, req[0] as OpReqType, rows);
    write(rt, '_npi_tril_indices', o[1] as TBlob, req[1] as OpReqType, cols);
  });

  def('_npi_diag_indices_from', (_a, _c, _i, req, o) => {
    const out = o[0] as TBlob;
    const n = out.shape[1] as number;
    write(
      rt,
      '_npi_diag_indices_from',
      out,
      req[0] as OpReqType,
      Array.from({ length: out.size }, (_, i) => i % n),
    );
  });

  def<{ shape: readonly number[] }>('_unravel_index', (a, _c, i, req, o) => {
    const idx = read(rt, '_unravel_index', i[0] as TBlob);
    const dims = a.shape;
    const total = dims.reduce((p, d) => p * d, 1);
    const n = idx.length;
    const out = new Float64Array(dims.length * n);
    for (let e = 0; e < n; e++) {
      let v = idx[e] as number;
      if (!(v >= 0 && v < total)) {
        throw new MXNetError(`index ${v} is out of bounds for array with size ${total}`, {
          op: '_unravel_index',
          params: { shape: dims },
          hint: `flat indices must be in [0, ${total})`,
        });
      }
      for (let d = dims.length - 1; d >= 0; d--) {
        const len = dims[d] as number;
        out[d * n + e] = v % len;
        v = Math.floor(v / len);
      }
    }
    write(rt, '_unravel_index', o[0] as TBlob, req[0] as OpReqType, out);
  });

  def<{ val: readonly number[]; wrap: boolean }>('_npi_fill_diagonal', (a, _c, i, req, o) => {
    const x = i[0] as TBlob;
    const vals = read(rt, '_npi_fill_diagonal', x);
    const shape = x.shape;
    let step: number;
    let end: number;
    if (shape.length === 2) {
      const cols = shape[1] as number;
      step = cols + 1;
      end = a.wrap ? x.size : Math.min(x.size, cols * cols);
    } else {
      // Strides of a cube: step = 1 + n + n² + ….
      step = 1;
      let p = 1;
      for (let d = shape.length - 1; d > 0; d--) {
        p *= shape[d] as number;
        step += p;
      }
      end = x.size;
    }
    const v = a.val.length === 0 ? [0] : a.val;
    for (let e = 0; e < end; e += step) vals[e] = v[(e / step) % v.length] as number;
    write(rt, '_npi_fill_diagonal', o[0] as TBlob, req[0] as OpReqType, vals);
  });
}
