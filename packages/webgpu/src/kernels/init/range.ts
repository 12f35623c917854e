/**
 * Sequences on webgpu: `_arange` and `_linspace`, through the shared generator (generate.ts).
 *
 * Arithmetic follows MXNet's kernels as cpu-wasm does (see its range.ts):
 * - `_arange`: start and step are cast to the output dtype first (ints truncate), element i is
 *   `start + floor(i / repeat) * step` in that dtype. In float32 the product `q * step` (q < 2^24)
 *   and the sum are each rounded once, as cpu-wasm's Math.fround steps, so results agree bit for bit.
 * - `_linspace`: `start + step * i`, step computed in double on the host. The GPU evaluates it in
 *   float32 (no f64 in WGSL): float outputs are within an ulp of the double result, and integer
 *   outputs take the floor of that, which can differ from the double floor only when the exact value
 *   lies within float32 rounding of an integer boundary.
 */
import type { DTypeName } from '@mx/base';
import { MXNetError } from '@mx/base';
import { type OpRegistry, OpReq, type OpReqType } from '@mx/ops';
import { type GpuBlob, type GpuHost, gpuKernel } from '../../kernel.js';
import type { WebGpuRuntime } from '../../runtime.js';
import { paramBits } from '../../wgsl.js';
import { dtypeError, EXTRA, generate } from './generate.js';

const SEQ_DTYPES: readonly DTypeName[] = ['float32', 'int32'];

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

const f32Bits = (v: number) => paramBits('float32', v);
const truncInt = (v: number) => (Number.isFinite(v) ? Math.trunc(v) | 0 : 0);

function arange(rt: WebGpuRuntime, a: ArangeAttrs, out: GpuBlob, req: OpReqType): void {
  if (!SEQ_DTYPES.includes(out.dtype)) throw dtypeError('_arange', out.dtype, SEQ_DTYPES);
  if (req === OpReq.null || out.size === 0) return;
  if (!(a.repeat > 0)) {
    throw new MXNetError(`Range only supports repeat > 0, received ${a.repeat}`, {
      op: '_arange',
      params: { repeat: a.repeat },
      hint: 'pass repeat >= 1',
    });
  }
  // MXNet RangeParamParser: arange(n) means start=0 (stop=n) unless the range is inferred.
  const start = a.stop === null && !a.infer_range ? 0 : a.start;
  const q = (e: string) => `(${e} / pu(${EXTRA}u))`;
  if (out.dtype === 'float32') {
    generate(
      rt,
      '_arange',
      out,
      req,
      'arange',
      (e) => `(pf(${EXTRA + 1}u) + f32(${q(e)}) * pf(${EXTRA + 2}u))`,
      [a.repeat, f32Bits(start), f32Bits(a.step)],
    );
    return;
  }
  generate(
    rt,
    '_arange',
    out,
    req,
    'arange',
    (e) => `(pi(${EXTRA + 1}u) + i32(${q(e)}) * pi(${EXTRA + 2}u))`,
    [a.repeat, truncInt(start) >>> 0, truncInt(a.step) >>> 0],
  );
}

function linspace(rt: WebGpuRuntime, a: LinspaceAttrs, out: GpuBlob, req: OpReqType): void {
  if (!SEQ_DTYPES.includes(out.dtype)) throw dtypeError('_linspace', out.dtype, SEQ_DTYPES);
  if (req === OpReq.null || out.size === 0) return;
  const stepNum = a.endpoint ? a.num - 1 : a.num;
  const step = stepNum > 0 ? (a.stop - a.start) / stepNum : 0;
  const v = (e: string) => `(pf(${EXTRA}u) + pf(${EXTRA + 1}u) * f32(${e}))`;
  generate(
    rt,
    '_linspace',
    out,
    req,
    'linspace',
    out.dtype === 'float32' ? v : (e) => `i32(floor(${v(e)}))`,
    [f32Bits(a.start), f32Bits(step)],
  );
}

export function installRange(registry: OpRegistry, gpu: GpuHost): void {
  registry.registerKernel(
    '_arange',
    'webgpu',
    gpuKernel<ArangeAttrs>(
      gpu,
      '_arange',
      (a, _i, req, out) => arange(gpu.rt, a, out[0] as GpuBlob, req[0] as OpReqType),
      SEQ_DTYPES,
    ),
  );
  registry.registerKernel(
    '_linspace',
    'webgpu',
    gpuKernel<LinspaceAttrs>(
      gpu,
      '_linspace',
      (a, _i, req, out) => linspace(gpu.rt, a, out[0] as GpuBlob, req[0] as OpReqType),
      SEQ_DTYPES,
    ),
  );
}
