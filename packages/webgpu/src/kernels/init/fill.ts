/**
 * Constant fills on webgpu: `_zeros`, `_ones`, `_full`, `zeros_like`, `ones_like` and `_eye`, all
 * through the shared generator (generate.ts). The fill value travels as the dtype's bits in a
 * uniform word, so one pipeline per (dtype, req) serves every value; `fillBlob` is exported for
 * kernels of other folders that need a zeroed output first (e.g. the reduce family's scatters).
 *
 * Values are cast as C++ `static_cast<DType>(double)` (cpu-wasm's castValue): ints truncate (NaN
 * and ±inf give 0), bool is `v != 0`, float32 rounds.
 */
import type { DTypeName } from '@mx/base';
import type { OpRegistry, OpReqType } from '@mx/ops';
import { type GpuBlob, type GpuHost, gpuKernel } from '../../kernel.js';
import type { WebGpuRuntime } from '../../runtime.js';
import { paramAs, paramBits, wgslType } from '../../wgsl.js';
import { EXTRA, generate } from './generate.js';

/** The bits of `v` cast to `dtype` (one uniform word). */
export function valueBits(dtype: DTypeName, v: number): number {
  const s = wgslType(dtype).scalar;
  if (dtype === 'bool') return v !== 0 ? 1 : 0;
  if (s === 'i32' || s === 'u32') return paramBits(dtype, Number.isFinite(v) ? v : 0);
  return paramBits(dtype, v);
}

/** Fill `out` with `value` honouring req (add accumulates; bool add is a logical or). */
export function fillBlob(rt: WebGpuRuntime, op: string, out: GpuBlob, req: OpReqType, value: number): void {
  generate(rt, op, out, req, 'fill', () => paramAs(out.dtype, EXTRA), [valueBits(out.dtype, value)]);
}

/** MXNet `EyeFill`: 1 where col - row == k, else 0 (an (N, M) output). */
function eye(rt: WebGpuRuntime, out: GpuBlob, req: OpReqType, k: number): void {
  const cols = out.shape[1] ?? 1;
  const one = wgslType(out.dtype).scalar;
  const cast = (x: string) => (out.dtype === 'bool' ? `u32(${x})` : `${one}(${x})`);
  generate(
    rt,
    '_eye',
    out,
    req,
    'eye',
    (e) => cast(`select(0u, 1u, i32(${e} % pu(${EXTRA}u)) - i32(${e} / pu(${EXTRA}u)) == pi(${EXTRA + 1}u))`),
    [cols, k | 0],
  );
}

export function installFill(registry: OpRegistry, gpu: GpuHost): void {
  const constant = (name: string, value: number) =>
    registry.registerKernel(
      name,
      'webgpu',
      gpuKernel(gpu, name, (_a, _i, req, out) =>
        fillBlob(gpu.rt, name, out[0] as GpuBlob, req[0] as OpReqType, value),
      ),
    );
  constant('_zeros', 0);
  constant('_ones', 1);
  constant('zeros_like', 0);
  constant('ones_like', 1);
  registry.registerKernel(
    '_full',
    'webgpu',
    gpuKernel<{ value: number }>(gpu, '_full', (a, _i, req, out) =>
      fillBlob(gpu.rt, '_full', out[0] as GpuBlob, req[0] as OpReqType, a.value),
    ),
  );
  registry.registerKernel(
    '_eye',
    'webgpu',
    gpuKernel<{ k: number }>(gpu, '_eye', (a, _i, req, out) =>
      eye(gpu.rt, out[0] as GpuBlob, req[0] as OpReqType, a.k),
    ),
  );
}
