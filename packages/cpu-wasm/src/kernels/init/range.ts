/**
 * Sequence kernels on cpu-wasm: `_arange` and `_linspace`, element by element over a typed view.
 *
 * Arithmetic follows MXNet's kernels so results match it bit for bit, not NumPy's algorithms:
 * - `_arange` (`range_fwd`): `start` and `step` are cast to the output dtype first, then element i
 *   is `start + (i / repeat) * step` in that dtype (float32 ops are rounded with Math.fround; ints
 *   truncate start/step, so arange(0.5, 3, dtype=int32) starts at 0 as in MXNet).
 * - `_linspace` (`linspace_fwd`): `start + step * i` in double, with `step = (stop - start) /
 *   (endpoint ? num - 1 : num)`, then cast; integer dtypes take the floor first.
 * Sequences are short next to fills (they are index vectors), so there is no SIMD path.
 */
import { type DTypeName, MXNetError } from '@mx/base';
import { type OpContext, type OpRegistry, OpReq, type OpReqType, type TBlob } from '@mx/ops';
import type { CpuWasmRuntime } from '../../runtime.js';
import { checkDtype } from './fill.js';

const SEQ_DTYPES: ReadonlySet<DTypeName> = new Set(['float32', 'float64', 'int32', 'int64', 'int8', 'uint8']);

type ArangeAttrs = {
  readonly start: number;
  readonly stop: number | null;
  readonly step: number;
  readonly repeat: number;
  readonly infer_range: boolean;
};
type LinspaceAttrs = {
  readonly start: number;
  readonly stop: number;
  readonly num: number;
  readonly endpoint: boolean;
};

type Writer = (i: number, v: number | bigint) => void;

/** Store element i honouring req (write/inplace: overwrite; add: accumulate). */
function writer(rt: CpuWasmRuntime, out: TBlob<number>, req: OpReqType): Writer {
  const view = rt.view(out) as unknown as { [i: number]: number | bigint };
  if (req !== OpReq.add)
    return (i, v) => {
      view[i] = v;
    };
  if (out.dtype === 'int64')
    return (i, v) => {
      view[i] = BigInt.asIntN(64, (view[i] as bigint) + (v as bigint));
    };
  if (out.dtype === 'float32')
    return (i, v) => {
      view[i] = Math.fround((view[i] as number) + Math.fround(v as number));
    };
  return (i, v) => {
    view[i] = (view[i] as number) + (v as number);
  };
}

function arange(rt: CpuWasmRuntime, a: ArangeAttrs, out: TBlob<number>, req: OpReqType): void {
  checkDtype('_arange', out.dtype, SEQ_DTYPES);
  if (req === OpReq.null || out.size === 0) return;
  if (!(a.repeat > 0)) {
    throw new MXNetError(`Range only supports repeat > 0, received ${a.repeat}`, {
      op: '_arange',
      params: { repeat: a.repeat },
    });
  }
  // MXNet RangeParamParser: arange(n) means start=0 (stop=n) unless the range is inferred.
  const start = a.stop === null && !a.infer_range ? 0 : a.start;
  const put = writer(rt, out, req);
  const rep = a.repeat;
  const n = out.size;
  switch (out.dtype) {
    case 'float32': {
      const s = Math.fround(start);
      const d = Math.fround(a.step);
      for (let i = 0; i < n; i++) put(i, Math.fround(s + Math.fround(Math.floor(i / rep) * d)));
      return;
    }
    case 'float64':
      for (let i = 0; i < n; i++) put(i, start + Math.floor(i / rep) * a.step);
      return;
    case 'int64': {
      const s = BigInt(Math.trunc(start));
      const d = BigInt(Math.trunc(a.step));
      for (let i = 0; i < n; i++) put(i, s + BigInt(Math.floor(i / rep)) * d);
      return;
    }
    default: {
      const s = Math.trunc(start);
      const d = Math.trunc(a.step);
      for (let i = 0; i < n; i++) put(i, s + Math.floor(i / rep) * d);
    }
  }
}

function linspace(rt: CpuWasmRuntime, a: LinspaceAttrs, out: TBlob<number>, req: OpReqType): void {
  checkDtype('_linspace', out.dtype, SEQ_DTYPES);
  if (req === OpReq.null || out.size === 0) return;
  const stepNum = a.endpoint ? a.num - 1 : a.num;
  const step = stepNum > 0 ? (a.stop - a.start) / stepNum : 0;
  const put = writer(rt, out, req);
  const n = out.size;
  switch (out.dtype) {
    case 'float32':
    case 'float64':
      for (let i = 0; i < n; i++) put(i, a.start + step * i);
      return;
    case 'int64':
      for (let i = 0; i < n; i++) {
        const v = Math.floor(a.start + step * i);
        put(i, Number.isFinite(v) ? BigInt(v) : 0n);
      }
      return;
    default:
      for (let i = 0; i < n; i++) put(i, Math.floor(a.start + step * i));
  }
}

export function installRange(registry: OpRegistry, rt: CpuWasmRuntime): void {
  registry.registerKernel<ArangeAttrs>('_arange', 'cpu-wasm', {
    compute: (a, _c: OpContext, _i, req, out) => arange(rt, a, out[0] as TBlob<number>, req[0] as OpReqType),
  });
  registry.registerKernel<LinspaceAttrs>('_linspace', 'cpu-wasm', {
    compute: (a, _c: OpContext, _i, req, out) =>
      linspace(rt, a, out[0] as TBlob<number>, req[0] as OpReqType),
  });
}
