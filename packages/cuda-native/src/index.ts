/**
 * @mx/cuda-native: the CUDA backend for Node. `await createCudaBackend()` loads the CUDA driver,
 * NVRTC and cuBLAS at run time (nothing is downloaded or linked at install) and returns a backend
 * serving gpu(0)…gpu(n-1); pass it to `createRuntime({ backends: [...] })` next to cpu-wasm.
 * `probeCuda()` reports what was found and what was tried, without failing.
 */
export type { CudaAddon, CudaDeviceInfo, LibraryReport, LoadAttempt } from './addon.js';
export {
  CUDA,
  CudaBackend,
  type CudaBackendOptions,
  type CudaProbe,
  createCudaBackend,
  describeCudaKernels,
  probeCuda,
} from './backend.js';
export {
  ARG_C_TYPES,
  BLOCK,
  blocksFor,
  type CType,
  CUDA_DTYPES,
  type CudaSource,
  ctype,
  type KernelArg,
  type Kind,
  literalC,
  loadC,
  MAXD,
  PRELUDE,
  toStorage,
} from './cuda-c.js';
export { addr, type CudaBlob, type CudaCompute, type CudaHost, cudaKernel } from './kernel.js';
export { CUDA_LEFT_OUT } from './kernels/index.js';
export {
  type Candidate,
  type CudaLibrary,
  candidates,
  describeStatus,
  type EnvVars,
  type LibraryStatus,
  searchFolders,
} from './libraries.js';
export { type RenderedLaunch, RenderRuntime } from './render-runtime.js';
export { type CudaRuntime, type Dim3, type GemmCall, packArgs, signatureOf } from './runtime.js';
