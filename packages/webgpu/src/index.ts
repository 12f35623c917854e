/**
 * @mx/webgpu: the GPU backend for browsers and Node (Dawn). `await createWebGpuBackend()` acquires a
 * device and returns a backend serving gpu(0); pass it to `createRuntime({ backends: [...] })`
 * next to cpu-wasm and move arrays between the two with `copyTo`.
 */
export {
  createWebGpuBackend,
  describeWebGpuKernels,
  WEBGPU,
  WEBGPU_DTYPES,
  WebGpuBackend,
  type WebGpuBackendOptions,
} from './backend.js';
export { type AcquireOptions, type AdapterSummary, acquireDevice, findGpu } from './device.js';
export { type GpuBlob, type GpuCompute, type GpuHost, gpuKernel } from './kernel.js';
export { WEBGPU_LEFT_OUT } from './kernels/index.js';
export { grid1d, type PipelineEntry, type ShaderSource, WebGpuRuntime } from './runtime.js';
export {
  type Bindings,
  bindBlobs,
  declareArrays,
  elemOffset,
  literal,
  load,
  main1d,
  paramAs,
  paramBits,
  paramsDecl,
  storageDecl,
  store,
  type WgslType,
  wgslType,
} from './wgsl.js';
