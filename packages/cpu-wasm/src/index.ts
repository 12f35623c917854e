/**
 * @mx/cpu-wasm: the default `@mx` backend. Every CPU array lives in one shared WebAssembly.Memory;
 * kernels are generated at run time as wasm (128-bit SIMD where it applies) by an in-repo
 * assembler, and large kernels are split across worker threads sharing the memory.
 */
export { CPU_WASM, CPU_WASM_COMPUTE_DTYPES, CpuWasmBackend, type CpuWasmOptions } from './backend.js';
export { WasmMemory, type WasmMemoryOptions } from './memory.js';
export { type CompiledKernel, CpuWasmRuntime, type KernelThreads, type WasmFeatures } from './runtime.js';
export { WorkerPool, type WorkerPoolOptions } from './threads/index.js';
