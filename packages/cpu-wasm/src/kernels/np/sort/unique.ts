/**
 * cpu-wasm kernel of `_npi_unique` (a dynamic-shape op: outputs are allocated once the distinct
 * values are counted). The flattened float32/int32/float64/int64 case, the benchmark's, sorts
 * with the wasm radix sort and compacts in wasm (radix.ts); every other dtype, and `axis`, sorts
 * slice positions with a stable comparison sort over decoded values and copies the chosen slices'
 * bytes. Both give NumPy 1.24's results: ascending, NaNs as one value at the end, the first
 * occurrence's index (stable order), inverse indices into the unique array, and counts.
 */
import { DType, fromBFloat16Bits, fromHalfBits } from '@mx/base';
import type { Attrs, DynamicOutput, OpRegistry, TBlob } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { isNaNValue } from '../../reduce/convert.js';
import { ALL_DTYPES } from '../../shape/kernel-util.js';
import { radixServes, radixUnique } from './radix.js';

const BACKEND = 'cpu-wasm';
type Blob = TBlob<number>;

interface UniqueAttrs extends Attrs {
  readonly return_index: boolean;
  readonly return_inverse: boolean;
  readonly return_counts: boolean;
  readonly axis: number | null;
}

/** The input's values as numbers or bigints (float16/bfloat16 decoded). */
function decode(rt: CpuWasmRuntime, x: Blob): ArrayLike<number | bigint> {
  const v = rt.view(x) as unknown as ArrayLike<number | bigint>;
  if (x.dtype === 'float16') return Float64Array.from(v as ArrayLike<number>, fromHalfBits);
  if (x.dtype === 'bfloat16') return Float64Array.from(v as ArrayLike<number>, fromBFloat16Bits);
  return Array.from(v);
}

/** NumPy's order: ascending, NaN last, NaN == NaN, -0 == +0. */
function compare(a: number | bigint, b: number | bigint): number {
  if (a < b) return -1;
  if (a > b) return 1;
  const an = isNaNValue(a);
  const bn = isNaNValue(b);
  return an === bn ? 0 : an ? 1 : -1;
}

/** Write the int64 outputs after the first (index, inverse, counts as the flags say). */
function writeExtras(
  attrs: UniqueAttrs,
  outputs: readonly DynamicOutput[],
  rt: CpuWasmRuntime,
  parts: { first: ArrayLike<number>; inverse: ArrayLike<number>; counts: ArrayLike<number> },
): void {
  let o = 1;
  const put = (vals: ArrayLike<number>) => {
    const b = (outputs[o++] as DynamicOutput<number>).alloc([vals.length]);
    if (vals.length === 0) return;
    const v = rt.view(b) as BigInt64Array;
    for (let i = 0; i < vals.length; i++) v[i] = BigInt(vals[i] as number);
  };
  if (attrs.return_index) put(parts.first);
  if (attrs.return_inverse) put(parts.inverse);
  if (attrs.return_counts) put(parts.counts);
}

export function installUnique(registry: OpRegistry, rt: CpuWasmRuntime): void {
  registry.registerKernel<UniqueAttrs>('_npi_unique', BACKEND, {
    dtypes: ALL_DTYPES,
    computeDynamic(attrs, _ctx, inputs, _req, outputs) {
      const x = inputs[0] as Blob;
      const extras = attrs.return_index || attrs.return_inverse || attrs.return_counts;
      const out0 = outputs[0] as DynamicOutput<number>;
      if (attrs.axis === null && x.size > 0 && radixServes(x.dtype)) {
        const p = radixUnique(rt, '_npi_unique', x, extras);
        try {
          const vb = out0.alloc([p.count]);
          p.writeValues(rt.address(vb));
          if (extras)
            writeExtras(attrs, outputs, rt, {
              first: p.first as Float64Array,
              inverse: p.inverse as Float64Array,
              counts: p.counts as Float64Array,
            });
        } finally {
          p.free();
        }
        return;
      }
      // Slices: (outer, n, inner) around the axis; slice j is every (o, j, k).
      const shape = x.shape;
      const a = attrs.axis === null ? -1 : attrs.axis < 0 ? attrs.axis + shape.length : attrs.axis;
      const outer = a < 0 ? 1 : shape.slice(0, a).reduce((p, d) => p * d, 1);
      const n = a < 0 ? x.size : (shape[a] as number);
      const inner = a < 0 ? 1 : shape.slice(a + 1).reduce((p, d) => p * d, 1);
      const vals = decode(rt, x);
      const cmpSlices = (i: number, j: number): number => {
        for (let o = 0; o < outer; o++)
          for (let k = 0; k < inner; k++) {
            const base = o * n * inner + k;
            const c = compare(vals[base + i * inner] as number, vals[base + j * inner] as number);
            if (c !== 0) return c;
          }
        return 0;
      };
      const order = Array.from({ length: n }, (_, i) => i).sort(cmpSlices);
      const first: number[] = [];
      const counts: number[] = [];
      const inverse = new Float64Array(n);
      for (let j = 0; j < n; j++) {
        const s = order[j] as number;
        if (j === 0 || cmpSlices(order[j - 1] as number, s) !== 0) {
          first.push(s);
          counts.push(0);
        }
        counts[counts.length - 1] = (counts[counts.length - 1] as number) + 1;
        inverse[s] = first.length - 1;
      }
      const outShape = a < 0 ? [first.length] : shape.map((d, i) => (i === a ? first.length : d));
      const vb = out0.alloc(outShape);
      if (vb.size > 0) {
        const es = DType[x.dtype].bytes;
        const u8 = new Uint8Array(rt.memory.buffer);
        const src = rt.address(x);
        const dst = rt.address(vb);
        const u = first.length;
        for (let o = 0; o < outer; o++)
          first.forEach((s, g) => {
            const from = src + (o * n + s) * inner * es;
            u8.copyWithin(dst + (o * u + g) * inner * es, from, from + inner * es);
          });
      }
      writeExtras(attrs, outputs, rt, { first, inverse, counts });
    },
  });
}
