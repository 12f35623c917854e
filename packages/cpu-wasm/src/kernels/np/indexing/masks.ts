/**
 * cpu-wasm kernels of the boolean-mask family: `_contrib_boolean_mask` and `_npx_nonzero`
 * (dynamic shapes: count the mask, `alloc` the output, copy blocks — the gather and the mask's
 * backward, a scatter of the output gradient's blocks into zeros, run in wasm: mask-run.ts), the mask assignments (one pass
 * counts the mask and checks the value against the count, a second writes) and the tensor
 * assignment's value gradient (the same walk, summing ograd into the value's broadcast layout).
 * The value may broadcast along any axis: its read offsets come per leading and per trailing
 * index (`valueLayout`), so forward and backward share one geometry.
 */
import { DType, fromBFloat16Bits, fromHalfBits, MXNetError, toBFloat16Bits, toHalfBits } from '@mx/base';
import { type Attrs, type OpRegistry, OpReq, type OpReqType } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { encodeScalar } from '../../shape/dtype-bits.js';
import { ALL_DTYPES, withTarget } from '../../shape/kernel-util.js';
import { BACKEND, type Blob, bytes, checkWriteReq, copyBase, prod, readMask } from './common.js';
import { WasmMask } from './mask-run.js';

const norm = (a: number, n: number) => (a < 0 ? a + n : a);

/** Mask geometry over axes [axis, axis + mdim) of `shape`: outer blocks, mask length, inner block elements. */
function geometry(shape: readonly number[], axis: number, mdim: number) {
  return { outer: prod(shape, 0, axis), n: prod(shape, axis, axis + mdim), inner: prod(shape, axis + mdim) };
}

export function installMasks(registry: OpRegistry, rt: CpuWasmRuntime): void {
  registry.registerKernel<Attrs>('_contrib_boolean_mask', BACKEND, {
    dtypes: ALL_DTYPES,
    computeDynamic: (attrs, _ctx, [data, index], _req, [out]) => {
      const d = data as Blob;
      const axis = norm(attrs.axis as number, d.shape.length);
      const mask = new WasmMask(rt, '_contrib_boolean_mask', index as Blob);
      try {
        const shape = [...d.shape];
        shape[axis] = mask.count();
        const o = out?.alloc(shape) as Blob;
        if (o.size === 0) return;
        const { outer, inner } = geometry(d.shape, axis, 1);
        mask.compact(rt.address(d), rt.address(o), outer, inner * DType[d.dtype].bytes);
      } finally {
        mask.free();
      }
    },
  });

  registry.registerKernel<Attrs>('_backward_contrib_boolean_mask', BACKEND, {
    dtypes: ALL_DTYPES,
    compute: (attrs, _ctx, [ograd, data, index], req, [dx, dmask]) => {
      const g = ograd as Blob;
      const d = data as Blob;
      const axis = norm(attrs.axis as number, d.shape.length);
      const mask = new WasmMask(rt, '_backward_contrib_boolean_mask', index as Blob);
      try {
        withTarget(rt, dx as Blob, req[0] as OpReqType, '_backward_contrib_boolean_mask', (t) => {
          const base = rt.address(t);
          bytes(rt).fill(0, base, base + t.size * DType[t.dtype].bytes);
          const { outer, inner } = geometry(d.shape, axis, 1);
          mask.expand(rt.address(g), base, outer, inner * DType[d.dtype].bytes);
        });
      } finally {
        mask.free();
      }
      const m = dmask as Blob | undefined;
      if (m !== undefined && req[1] !== OpReq.null && req[1] !== OpReq.add && m.size > 0) {
        const a = rt.address(m);
        bytes(rt).fill(0, a, a + m.size * DType[m.dtype].bytes);
      }
    },
  });

  registry.registerKernel<Attrs>('_npx_nonzero', BACKEND, {
    dtypes: ALL_DTYPES,
    computeDynamic: (_attrs, _ctx, [x], _req, [out]) => {
      const src = x as Blob;
      const mask = readMask(rt, src);
      let count = 0;
      for (let i = 0; i < mask.length; i++) count += mask[i] as number;
      const nd = src.shape.length;
      const o = out?.alloc([count, nd]) as Blob;
      if (o.size === 0) return;
      const v = rt.view(o) as BigInt64Array;
      const idx = new Array<number>(nd).fill(0);
      let k = 0;
      for (let i = 0; i < mask.length; i++) {
        if (mask[i] !== 0) for (let j = 0; j < nd; j++) v[k++] = BigInt(idx[j] as number);
        for (let j = nd - 1; j >= 0; j--) {
          idx[j] = (idx[j] as number) + 1;
          if ((idx[j] as number) < (src.shape[j] as number)) break;
          idx[j] = 0;
        }
      }
    },
  });

  const assign = (op: string, tensor: boolean) =>
    registry.registerKernel<Attrs>(op, BACKEND, {
      dtypes: ALL_DTYPES,
      compute: (attrs, _ctx, inputs, req, [out]) => {
        const data = inputs[0] as Blob;
        const maskBlob = inputs[1] as Blob;
        const o = out as Blob;
        if (!checkWriteReq(op, req[0])) return;
        const s = attrs.start_axis as number;
        const mask = readMask(rt, maskBlob);
        const count = countTrue(mask);
        const { outer, n, inner } = geometry(data.shape, s, maskBlob.shape.length);
        const size = DType[data.dtype].bytes;
        // First pass: the value against the count (nothing written yet).
        const layout = tensor
          ? valueLayout(op, inputs[2] as Blob, data.shape, s, maskBlob.shape.length, count)
          : undefined;
        copyBase(rt, data, o);
        if (count === 0 || o.size === 0) return;
        const u8 = bytes(rt);
        const base = rt.address(o);
        if (layout === undefined) {
          // The scalar, stored once into the first masked element, then copied as bytes.
          const enc = encodeScalar(data.dtype, attrs.value as number);
          let first = -1;
          for (let a = 0; a < outer; a++)
            for (let i = 0; i < n; i++) {
              if (mask[i] === 0) continue;
              for (let t = 0; t < inner; t++) {
                const dp = base + ((a * n + i) * inner + t) * size;
                if (first < 0) {
                  const view = rt.memory.view(data.dtype, dp, 1) as unknown as {
                    [i: number]: number | bigint;
                  };
                  view[0] = DType[data.dtype].bigint && typeof enc === 'number' ? BigInt(enc) : enc;
                  first = dp;
                } else u8.copyWithin(dp, first, first + size);
              }
            }
          return;
        }
        const v0 = rt.address(inputs[2] as Blob);
        const { lead, sk, trail } = layout;
        for (let a = 0; a < outer; a++) {
          let k = 0;
          for (let i = 0; i < n; i++) {
            if (mask[i] === 0) continue;
            const row = (lead[a] as number) + k * sk;
            for (let t = 0; t < inner; t++) {
              const sp = v0 + (row + (trail[t] as number)) * size;
              const dp = base + ((a * n + i) * inner + t) * size;
              u8.copyWithin(dp, sp, sp + size);
            }
            k++;
          }
        }
      },
    });
  assign('_npi_boolean_mask_assign_scalar', false);
  assign('_npi_boolean_mask_assign_tensor', true);

  // The value's gradient: ograd at the masked positions summed into the value's layout (each
  // value element collects the region elements it was broadcast to), in float64, rounded once.
  const valueGrad = '_backward_npi_boolean_mask_assign_tensor_value';
  registry.registerKernel<Attrs>(valueGrad, BACKEND, {
    dtypes: ALL_DTYPES,
    compute: (attrs, _ctx, [ograd, maskIn, valueIn], req, [out]) => {
      const g = ograd as Blob;
      const maskBlob = maskIn as Blob;
      const dv = out as Blob;
      if (req[0] === OpReq.null) return;
      const s = attrs.start_axis as number;
      const mask = readMask(rt, maskBlob);
      const count = countTrue(mask);
      const layout = valueLayout(valueGrad, valueIn as Blob, g.shape, s, maskBlob.shape.length, count);
      if (dv.size === 0) return;
      const acc = req[0] === OpReq.add ? readNumbers(rt, dv) : new Float64Array(dv.size);
      if (count > 0 && g.size > 0) {
        const src = readNumbers(rt, g);
        const { outer, n, inner } = geometry(g.shape, s, maskBlob.shape.length);
        const { lead, sk, trail } = layout;
        for (let a = 0; a < outer; a++) {
          let k = 0;
          for (let i = 0; i < n; i++) {
            if (mask[i] === 0) continue;
            const row = (lead[a] as number) + k * sk;
            const gp = (a * n + i) * inner;
            for (let t = 0; t < inner; t++) {
              const j = row + (trail[t] as number);
              acc[j] = (acc[j] as number) + (src[gp + t] as number);
            }
            k++;
          }
        }
      }
      writeNumbers(rt, dv, acc);
    },
  });
}

function countTrue(mask: Uint8Array): number {
  let count = 0;
  for (let i = 0; i < mask.length; i++) count += mask[i] as number;
  return count;
}

/** A blob's elements as doubles (half types decoded, int64 through Number). */
function readNumbers(rt: CpuWasmRuntime, b: Blob): Float64Array {
  if (b.size === 0) return new Float64Array(0);
  const v = rt.view(b);
  if (b.dtype === 'float16') return Float64Array.from(v as Uint16Array, fromHalfBits);
  if (b.dtype === 'bfloat16') return Float64Array.from(v as Uint16Array, fromBFloat16Bits);
  if (DType[b.dtype].bigint) return Float64Array.from(v as BigInt64Array, (x) => Number(x));
  return Float64Array.from(v as ArrayLike<number>);
}

/** Writes doubles into a blob in its dtype (round to nearest for halves, truncation for integers, nonzero for bool). */
function writeNumbers(rt: CpuWasmRuntime, b: Blob, vals: Float64Array): void {
  const w = rt.view(b) as unknown as { [i: number]: number | bigint };
  const enc: (x: number) => number | bigint =
    b.dtype === 'float16'
      ? toHalfBits
      : b.dtype === 'bfloat16'
        ? toBFloat16Bits
        : b.dtype === 'bool'
          ? (x) => (x !== 0 ? 1 : 0)
          : DType[b.dtype].bigint
            ? (x) => BigInt(Math.trunc(x) || 0)
            : (x) => x;
  for (let i = 0; i < vals.length; i++) w[i] = enc(vals[i] as number);
}

/** NumPy's tuple text of a shape: `(3,4)`, `(3,)`, `()`. */
const npShape = (s: readonly number[]) => (s.length === 1 ? `(${s[0]},)` : `(${s.join(',')})`);

/**
 * Where the value of a tensor mask assignment over `dshape` (mask over axes [s, s + mdim) with
 * `count` true elements) is read for each written element: the value element of region element
 * (a, k, t) — `a` the flat index over the leading axes, `k` the k-th true mask element, `t` the flat
 * index over the trailing axes — is `lead[a] + k * sk + trail[t]`. The value broadcasts to the
 * region (lead..., count, trail...): left-padded with 1s, each dim 1 (offset step 0) or equal. A
 * value that does not fit is refused with NumPy's message: for a mask over every axis (NumPy's
 * 1-D boolean assignment) the count of values, otherwise the broadcast to the indexing result.
 */
function valueLayout(
  op: string,
  value: Blob,
  dshape: readonly number[],
  s: number,
  mdim: number,
  count: number,
): { lead: Float64Array; sk: number; trail: Float64Array } {
  const leadShape = dshape.slice(0, s);
  const trailShape = dshape.slice(s + mdim);
  const region = [...leadShape, count, ...trailShape];
  const outer = prod(leadShape);
  const inner = prod(trailShape);
  const zeros = { lead: new Float64Array(outer), sk: 0, trail: new Float64Array(inner) };
  if (value.size === 1) return zeros;
  const pad = region.length - value.shape.length;
  const vs = [...new Array<number>(Math.max(pad, 0)).fill(1), ...value.shape];
  const fits = pad >= 0 && vs.every((d, i) => d === 1 || d === region[i]);
  if (!fits) {
    const message =
      region.length === 1
        ? value.shape.length > 1
          ? `NumPy boolean array indexing assignment requires a 0 or 1-dimensional input, input has ${value.shape.length} dimensions`
          : `NumPy boolean array indexing assignment cannot assign ${value.size} input values to the ${count} output values where the mask is true`
        : `shape mismatch: value array of shape ${npShape(value.shape)} could not be broadcast to indexing result of shape ${npShape(region)}`;
    throw new MXNetError(message, {
      op,
      device: BACKEND,
      shapes: [[...dshape], [...value.shape]],
      hint:
        region.length === 1
          ? 'give as many values as the mask has true elements, or one'
          : `give a value that broadcasts to ${npShape(region)} (the mask selects ${count} elements)`,
    });
  }
  // Element strides of the contiguous value over the region's axes, 0 along broadcast axes.
  const st = new Array<number>(vs.length);
  let acc = 1;
  for (let i = vs.length - 1; i >= 0; i--) {
    st[i] = (vs[i] as number) === 1 ? 0 : acc;
    acc *= vs[i] as number;
  }
  const offsets = (shape: readonly number[], from: number, total: number): Float64Array => {
    const out = new Float64Array(total);
    const idx = new Array<number>(shape.length).fill(0);
    let off = 0;
    for (let f = 0; f < total; f++) {
      out[f] = off;
      for (let j = shape.length - 1; j >= 0; j--) {
        idx[j] = (idx[j] as number) + 1;
        off += st[from + j] as number;
        if ((idx[j] as number) < (shape[j] as number)) break;
        off -= (shape[j] as number) * (st[from + j] as number);
        idx[j] = 0;
      }
    }
    return out;
  };
  return {
    lead: offsets(leadShape, 0, outer),
    sk: st[s] as number,
    trail: offsets(trailShape, s + 1, inner),
  };
}
