/**
 * np indexing ops cpu-wasm runs and webgpu does not, each with the reason (the coverage test requires
 * every cpu-wasm op to have a webgpu kernel or an entry here). The dynamic-shape ops need the
 * count on the host before the output exists, which a GPU queue cannot give synchronously
 * (docs/design/np.md, "Dynamic shapes": the async forms are the WebGPU route); the gathers and
 * region writes take int64 index arrays and need a bounds pass before any write (a reduction read
 * back to the host, or an error buffer), planned with the WGSL index kernels.
 */
const DYNAMIC =
  'data-dependent output shape: the count must reach the host before the output exists; WebGPU cannot block, so np routes it through the async forms (getAsync / nonzeroAsync)';
const INDEX64 =
  'int64 index arrays (no 64-bit integers in WGSL) and a bounds pass before any write; planned with the WGSL index kernels';

export const LEFT_OUT: Readonly<Record<string, string>> = {
  _contrib_boolean_mask: DYNAMIC,
  _npx_nonzero: `${DYNAMIC}; int64 output`,
  _backward_contrib_boolean_mask: 'backward of the dynamic-shape boolean_mask (its forward runs on cpu(0))',
  _npi_boolean_mask_assign_scalar:
    'mask count and prefix sum before the write; planned with the WGSL compaction kernel',
  _npi_boolean_mask_assign_tensor:
    'mask count checked against the value before any write; planned with the WGSL compaction kernel',
  _backward_npi_boolean_mask_assign_tensor_value:
    'mask prefix sum, then a sum over broadcast axes into the value (no float atomics for the scatter-add); planned with the WGSL compaction kernel',
  gather_nd: INDEX64,
  _backward_gather_nd: `${INDEX64}; scatter-add needs sorted indices (no float atomics)`,
  _scatter_set_nd: INDEX64,
  _slice_assign: 'strided region write; planned with the WGSL strided-copy kernel',
  _slice_assign_scalar: 'strided region fill; planned with the WGSL strided-copy kernel',
};
