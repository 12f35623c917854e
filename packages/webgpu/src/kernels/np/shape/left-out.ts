/**
 * np shape ops cpu-wasm runs and webgpu does not, each with the reason (the coverage test requires
 * every cpu-wasm op to have a webgpu kernel or an entry here). The other np shape ops are
 * composites over legacy kernels (Concat, stack, slice_axis, transpose, reverse, broadcast_to,
 * tile, repeat, SwapAxis, _copy), which WebGPU has, so they run there unchanged.
 */
const GATHER =
  'per-axis index-map gather (cpu-wasm: strided copies per segment); needs a WGSL gather with a map buffer, not written yet (on gpu(0) copy the array to cpu(0) first)';

export const LEFT_OUT: Readonly<Record<string, string>> = {
  _npi_roll: GATHER,
  _npi_repeats: GATHER,
  _backward_npi_repeats: `${GATHER} (scatter-add adjoint)`,
  _npi_pad: `${GATHER}; maximum/minimum fill axis by axis`,
  _backward_npi_pad: `${GATHER} (scatter-add adjoint)`,
  _npi_rot90:
    'one strided copy with negative strides on cpu-wasm; WebGPU composites cannot chain reverse and transpose without a scratch buffer',
};
