/**
 * np sort ops cpu-wasm runs and webgpu does not, each with the reason (the coverage test requires
 * every cpu-wasm op to have a webgpu kernel or an entry here). The `_npi_where*` ops are SimpleOps
 * (the WGSL expression compiler builds them), sort/argsort/take are the legacy ops' WebGPU
 * kernels and searchsorted has its own (searchsorted.ts), so only unique is left out.
 */
export const LEFT_OUT: Readonly<Record<string, string>> = {
  _npi_unique:
    'data-dependent output shape (the distinct count must reach the host before the outputs exist; WebGPU cannot block) and int64 index outputs; planned with the WGSL radix sort and compaction kernels behind an async form',
};
