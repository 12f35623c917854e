/**
 * webgpu kernels of the np generators with their own FCompute in MXNet 2.0: `_npi_linspace`,
 * `_npi_logspace`, `_npi_indices`, `_npi_tri`, all through the init family's generator
 * (init/generate.ts: one value per element index, req and packed bool handled there). The fills,
 * eye and arange need nothing here: their op definitions run the legacy kernels (`via`).
 *
 * WGSL has no f64: sequences are evaluated in f32 (within an ulp of cpu-wasm's double results for
 * float outputs). Integer linspace takes the floor (NumPy's rule, as cpu-wasm); integer logspace
 * rounds results within 1e-4 of an integer before truncating, so that f32 `pow(10, 2)` = 99.99999
 * still gives 100 as the double computation does.
 */
import type { DTypeName } from '@mx/base';
import type { OpRegistry, OpReqType } from '@mx/ops';
import { type GpuBlob, type GpuHost, gpuKernel } from '../../../kernel.js';
import { paramBits, wgslType } from '../../../wgsl.js';
import { EXTRA, generate } from '../../init/generate.js';

const f32Bits = (v: number) => paramBits('float32', v);

/** `x` (an f32 expression) as `dtype`'s scalar type, integers truncated (C++ static_cast). */
export function fromF32(dtype: DTypeName, x: string): string {
  if (dtype === 'bool') return `select(0u, 1u, (${x}) != 0.0)`;
  const s = wgslType(dtype).scalar;
  return s === 'f32' ? `(${x})` : `${s}(${x})`;
}

/** `x` (a u32 expression) as `dtype`'s scalar type. */
function fromU32(dtype: DTypeName, x: string): string {
  if (dtype === 'bool') return `select(0u, 1u, (${x}) != 0u)`;
  const s = wgslType(dtype).scalar;
  return s === 'u32' ? `(${x})` : `${s}(${x})`;
}

const isInt = (dtype: DTypeName) => dtype === 'int32' || dtype === 'uint32';

type LinspaceAttrs = {
  readonly start_double: number;
  readonly stop_double: number;
  readonly start_int: number;
  readonly stop_int: number;
  readonly start_uint: number;
  readonly stop_uint: number;
  readonly num: number;
  readonly endpoint: boolean;
  readonly value_type: number;
};

type LogspaceAttrs = {
  readonly start: number;
  readonly stop: number;
  readonly num: number;
  readonly endpoint: boolean;
  readonly base: number;
};

export function installSequences(registry: OpRegistry, gpu: GpuHost): void {
  registry.registerKernel(
    '_npi_linspace',
    'webgpu',
    gpuKernel<LinspaceAttrs>(gpu, '_npi_linspace', (a, _i, req, outs) => {
      const out = outs[0] as GpuBlob;
      const [start, stop] =
        a.value_type === 0
          ? [a.start_int, a.stop_int]
          : a.value_type === 1
            ? [a.start_uint, a.stop_uint]
            : [a.start_double, a.stop_double];
      const stepNum = a.endpoint ? a.num - 1 : a.num;
      const step = stepNum > 0 ? (stop - start) / stepNum : 0;
      const helpers = `fn lin(e: u32) -> f32 {
  if (e == 0u) { return pf(${EXTRA}u); }
  if (pu(${EXTRA + 3}u) != 0u && e + 1u == pu(1u)) { return pf(${EXTRA + 2}u); }
  return pf(${EXTRA}u) + pf(${EXTRA + 1}u) * f32(e);
}
`;
      const v = (e: string) => (isInt(out.dtype) ? `floor(lin(${e}))` : `lin(${e})`);
      generate(
        gpu.rt,
        '_npi_linspace',
        out,
        req[0] as OpReqType,
        'np_linspace',
        (e) => fromF32(out.dtype, v(e)),
        [f32Bits(start), f32Bits(step), f32Bits(stop), a.endpoint ? 1 : 0],
        helpers,
      );
    }),
  );

  registry.registerKernel(
    '_npi_logspace',
    'webgpu',
    gpuKernel<LogspaceAttrs>(gpu, '_npi_logspace', (a, _i, req, outs) => {
      const out = outs[0] as GpuBlob;
      const stepNum = a.endpoint ? a.num - 1 : a.num;
      const step = stepNum > 0 ? (a.stop - a.start) / stepNum : 0;
      const helpers = `fn lsp(e: u32) -> f32 {
  let v = pow(pf(${EXTRA + 2}u), pf(${EXTRA}u) + pf(${EXTRA + 1}u) * f32(e));
  if (${isInt(out.dtype) ? 'true' : 'false'}) {
    let r = round(v);
    if (abs(v - r) <= 1e-4 * max(1.0, abs(r))) { return r; }
  }
  return v;
}
`;
      generate(
        gpu.rt,
        '_npi_logspace',
        out,
        req[0] as OpReqType,
        'np_logspace',
        (e) => fromF32(out.dtype, `lsp(${e})`),
        [f32Bits(a.start), f32Bits(step), f32Bits(a.base)],
        helpers,
      );
    }),
  );

  registry.registerKernel(
    '_npi_indices',
    'webgpu',
    gpuKernel<{ dimensions: readonly number[] }>(gpu, '_npi_indices', (a, _i, req, outs) => {
      const out = outs[0] as GpuBlob;
      const dims = a.dimensions;
      const n = dims.reduce((p, d) => p * d, 1);
      const inner = dims.map((_, d) => dims.slice(d + 1).reduce((p, x) => p * x, 1));
      // words: N, ndim, dims..., inner...
      const helpers = `fn idx(e: u32) -> u32 {
  let axis = e / pu(${EXTRA}u);
  let nd = pu(${EXTRA + 1}u);
  let d = pu(${EXTRA + 2}u + axis);
  let inner = pu(${EXTRA + 2}u + nd + axis);
  return ((e % pu(${EXTRA}u)) / inner) % d;
}
`;
      generate(
        gpu.rt,
        '_npi_indices',
        out,
        req[0] as OpReqType,
        `np_indices${dims.length}`,
        (e) => fromU32(out.dtype, `idx(${e})`),
        [n, dims.length, ...dims, ...inner],
        helpers,
      );
    }),
  );

  registry.registerKernel(
    '_npi_tri',
    'webgpu',
    gpuKernel<{ k: number }>(gpu, '_npi_tri', (a, _i, req, outs) => {
      const out = outs[0] as GpuBlob;
      const cols = out.shape[1] ?? 1;
      generate(
        gpu.rt,
        '_npi_tri',
        out,
        req[0] as OpReqType,
        'np_tri',
        (e) =>
          fromU32(
            out.dtype,
            `select(0u, 1u, i32(${e} % pu(${EXTRA}u)) <= i32(${e} / pu(${EXTRA}u)) + pi(${EXTRA + 1}u))`,
          ),
        [Math.max(cols, 1), a.k | 0],
      );
    }),
  );
}
