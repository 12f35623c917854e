/**
 * cpu-wasm kernels of `_npi_bincount`, `_histogram` (`_npi_histogram`), `_npi_diff` and
 * `_backward_npi_diff`: TypeScript loops. bincount checks every value (non-negative, below the
 * output length) before writing; histogram bins as NumPy does (index from the affine map, then
 * corrected against the actual edges; the last bin is closed; values outside the range and NaN are
 * dropped); diff differences n times with one rounding to the dtype per step, as NumPy's repeated
 * subtraction (integers wrap).
 */
import { MXNetError } from '@mx/base';
import { type Attrs, type OpRegistry, OpReq, type OpReqType } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { converterTo } from '../../reduce/convert.js';
import { laneGeometry } from '../../reduce/index-kernels.js';
import { type Blob, NP_REDUCE_TS_DTYPES, readF64, writeAll } from './io.js';

interface BincountAttrs extends Attrs {
  readonly minlength: number;
  readonly has_weights: boolean;
}
interface HistogramAttrs extends Attrs {
  readonly bin_cnt: number | null;
  readonly range: readonly number[] | null;
}
interface DiffAttrs extends Attrs {
  readonly n: number;
  readonly axis: number;
}

/** NumPy's `linspace(lo, hi, bins + 1)`: i·step + lo, the last edge exactly hi. */
export function uniformEdges(lo: number, hi: number, bins: number): Float64Array {
  const e = new Float64Array(bins + 1);
  const step = (hi - lo) / bins;
  for (let i = 0; i <= bins; i++) e[i] = step === 0 ? (i / bins) * (hi - lo) + lo : i * step + lo;
  e[bins] = hi;
  return e;
}

/** The bin of `x` among `edges` (n + 1 edges, last bin closed), or -1 when outside. */
function binOf(x: number, edges: Float64Array, uniform: boolean): number {
  const n = edges.length - 1;
  const lo = edges[0] as number;
  const hi = edges[n] as number;
  if (!(x >= lo && x <= hi)) return -1;
  let t: number;
  if (uniform) {
    t = Math.min(Math.trunc(((x - lo) * n) / (hi - lo)), n - 1);
    if (x < (edges[t] as number)) t -= 1;
    if (t < n - 1 && x >= (edges[t + 1] as number)) t += 1;
    return t;
  }
  // Non-uniform: the number of edges <= x, minus one, the last edge belonging to the last bin.
  let a = 0;
  let b = n + 1;
  while (a < b) {
    const m = (a + b) >> 1;
    if ((edges[m] as number) <= x) a = m + 1;
    else b = m;
  }
  return Math.min(a - 1, n - 1);
}

export function installNpCounting(registry: OpRegistry, rt: CpuWasmRuntime): void {
  registry.registerKernel<BincountAttrs>('_npi_bincount', 'cpu-wasm', {
    dtypes: NP_REDUCE_TS_DTYPES,
    compute(attrs, _ctx, inputs, req, outputs) {
      const d = readF64(rt, inputs[0] as Blob);
      const w = attrs.has_weights ? readF64(rt, inputs[1] as Blob) : undefined;
      const y = outputs[0] as Blob;
      for (const v of d) {
        if (!(v >= 0)) {
          throw new MXNetError("'list' argument must have no negative elements", {
            op: '_npi_bincount',
            device: 'cpu-wasm',
          });
        }
        if (v >= y.size) {
          throw new MXNetError(
            `bincount value ${v} does not fit the output of length ${y.size} (minlength): this op has no dynamic output shape yet`,
            {
              op: '_npi_bincount',
              device: 'cpu-wasm',
              hint: 'pass minlength > max(data) (np.bincount does it)',
            },
          );
        }
      }
      const out = new Float64Array(y.size);
      d.forEach((v, i) => {
        const t = Math.trunc(v);
        out[t] = (out[t] as number) + (w === undefined ? 1 : (w[i] as number));
      });
      writeAll(rt, y, req[0] as OpReqType, out, '_npi_bincount');
    },
  });

  registry.registerKernel<HistogramAttrs>('_histogram', 'cpu-wasm', {
    dtypes: NP_REDUCE_TS_DTYPES,
    compute(attrs, _ctx, inputs, req, outputs) {
      const x = inputs[0] as Blob;
      const v = readF64(rt, x);
      const edgesOut = outputs[1] as Blob;
      let edges: Float64Array;
      const uniform = attrs.bin_cnt !== null;
      if (attrs.bin_cnt !== null) {
        const [lo, hi] = attrs.range as [number, number];
        // The edges as NumPy stores them (in the data's float dtype), then binned against those.
        const conv = converterTo(edgesOut.dtype === 'float32' ? 'float32' : 'float64', '_histogram');
        edges = uniformEdges(lo, hi, attrs.bin_cnt).map((e) => conv(e) as number);
      } else edges = readF64(rt, inputs[1] as Blob);
      for (let i = 1; i < edges.length; i++) {
        if (!((edges[i] as number) >= (edges[i - 1] as number))) {
          throw new MXNetError('`bins` must increase monotonically, when an array', {
            op: '_histogram',
            device: 'cpu-wasm',
          });
        }
      }
      const counts = new Float64Array(edges.length - 1);
      for (const e of v) {
        const b = binOf(e, edges, uniform);
        if (b >= 0) counts[b] = (counts[b] as number) + 1;
      }
      writeAll(rt, outputs[0] as Blob, req[0] as OpReqType, counts, '_histogram');
      if ((req[1] ?? OpReq.null) !== OpReq.null)
        writeAll(rt, edgesOut, req[1] as OpReqType, edges, '_histogram');
    },
  });

  registry.registerKernel<DiffAttrs>('_npi_diff', 'cpu-wasm', {
    dtypes: NP_REDUCE_TS_DTYPES.filter((d) => d !== 'bool'),
    compute(attrs, _ctx, inputs, req, outputs) {
      const x = inputs[0] as Blob;
      const y = outputs[0] as Blob;
      if ((req[0] as OpReqType) === OpReq.null || y.size === 0) return;
      const v = readF64(rt, x);
      const conv = converterTo(x.dtype, '_npi_diff');
      const round = (t: number) => Number(conv(t));
      const [outer, len, inner] = laneGeometry(x.shape, attrs.axis);
      const m = Math.max(0, len - attrs.n);
      const out = new Float64Array(y.size);
      const lane = new Float64Array(len);
      for (let o = 0; o < outer; o++) {
        for (let i = 0; i < inner; i++) {
          for (let j = 0; j < len; j++) lane[j] = v[(o * len + j) * inner + i] as number;
          for (let s = 1; s <= attrs.n; s++)
            for (let j = 0; j < len - s; j++) lane[j] = round((lane[j + 1] as number) - (lane[j] as number));
          for (let j = 0; j < m; j++) out[(o * m + j) * inner + i] = lane[j] as number;
        }
      }
      writeAll(rt, y, req[0] as OpReqType, out, '_npi_diff');
    },
  });

  registry.registerKernel<DiffAttrs>('_backward_npi_diff', 'cpu-wasm', {
    dtypes: ['float32', 'float64'],
    compute(attrs, _ctx, inputs, req, outputs) {
      const og = inputs[0] as Blob;
      const dx = outputs[0] as Blob;
      if ((req[0] as OpReqType) === OpReq.null || dx.size === 0) return;
      const g = readF64(rt, og);
      const [outer, len, inner] = laneGeometry(dx.shape, attrs.axis);
      const m = Math.max(0, len - attrs.n);
      const out = new Float64Array(dx.size);
      let cur = new Float64Array(len);
      for (let o = 0; o < outer; o++) {
        for (let i = 0; i < inner; i++) {
          cur.fill(0);
          for (let j = 0; j < m; j++) cur[j] = g[(o * m + j) * inner + i] as number;
          // Adjoint of y[j] = x[j+1] - x[j] (length L-1 → L), applied n times.
          for (let s = attrs.n; s >= 1; s--) {
            const l = len - s; // length of the current gradient
            const next = new Float64Array(len);
            for (let j = 0; j <= l; j++)
              next[j] = (j > 0 ? (cur[j - 1] as number) : 0) - (j < l ? (cur[j] as number) : 0);
            cur = next;
          }
          for (let j = 0; j < len; j++) out[(o * len + j) * inner + i] = cur[j] as number;
        }
      }
      writeAll(rt, dx, req[0] as OpReqType, out, '_backward_npi_diff');
    },
  });
}
