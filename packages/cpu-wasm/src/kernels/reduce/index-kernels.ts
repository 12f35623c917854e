/**
 * cpu-wasm kernels of argmax/argmin: a TypeScript loop over (outer, n, inner) lanes of the one
 * reduced axis (the whole array when axis is None). Ties give the first index (strict compare), as
 * MXNet documents. A NaN wins and the first NaN's index is returned, as NumPy does; MXNet's CPU
 * loop (mshadow reduce_with_axis) instead keeps updating the index after a NaN and returns the last
 * index of the lane, an artefact we do not copy. The result has the input's dtype (MXNet's
 * ElemwiseType), written with the output converter so req=add accumulates.
 */
import type { DTypeName } from '@mx/base';
import type { Attrs, OpRegistry, OpReqType, TBlob } from '@mx/ops';
import { OpReq } from '@mx/ops';
import type { CpuWasmRuntime } from '../../runtime.js';
import { isNaNValue, REDUCE_DTYPES, storerFor, unsupportedDType } from './convert.js';

interface ReduceAxisAttrs extends Attrs {
  readonly axis: number | null;
  readonly keepdims: boolean;
}

/** (outer, n, inner) of a lane-wise op along `axis` (null: the flattened array). */
export function laneGeometry(shape: readonly number[], axis: number | null): [number, number, number] {
  const size = shape.reduce((p, d) => p * d, 1);
  if (axis === null || shape.length === 0) return [1, size, 1];
  const a = axis < 0 ? axis + shape.length : axis;
  let outer = 1;
  let inner = 1;
  for (let i = 0; i < a; i++) outer *= shape[i] as number;
  for (let i = a + 1; i < shape.length; i++) inner *= shape[i] as number;
  return [outer, shape[a] as number, inner];
}

function argSearch(
  rt: CpuWasmRuntime,
  name: string,
  max: boolean,
  attrs: ReduceAxisAttrs,
  x: TBlob<number>,
  y: TBlob<number>,
  req: OpReqType,
): void {
  const dt: DTypeName = x.dtype;
  if (!REDUCE_DTYPES.includes(dt)) throw unsupportedDType(name, dt, REDUCE_DTYPES);
  if (req === OpReq.null || y.size === 0 || x.size === 0) return;
  const [outer, n, inner] = laneGeometry(x.shape, attrs.axis);
  const v = rt.view(x) as unknown as (number | bigint)[];
  const store = storerFor(rt.view(y), y.dtype, req, name);
  for (let o = 0; o < outer; o++) {
    for (let k = 0; k < inner; k++) {
      const base = o * n * inner + k;
      let best = v[base] as number | bigint;
      let bi = 0;
      if (!isNaNValue(best)) {
        for (let j = 1; j < n; j++) {
          const e = v[base + j * inner] as number | bigint;
          if (isNaNValue(e)) {
            bi = j;
            break;
          }
          if (max ? e > best : e < best) {
            best = e;
            bi = j;
          }
        }
      }
      store(o * inner + k, bi);
    }
  }
}

export function installIndexReduces(registry: OpRegistry, rt: CpuWasmRuntime): void {
  for (const [name, max] of [
    ['argmax', true],
    ['argmin', false],
  ] as const) {
    registry.registerKernel<ReduceAxisAttrs>(name, 'cpu-wasm', {
      dtypes: REDUCE_DTYPES,
      compute(attrs, _ctx, inputs, req, outputs) {
        argSearch(
          rt,
          name,
          max,
          attrs,
          inputs[0] as TBlob<number>,
          outputs[0] as TBlob<number>,
          req[0] as OpReqType,
        );
      },
    });
  }
}
