/**
 * Ops of the nn/layers family (webgpu's nn/layers and nn/seq) that cpu-wasm runs and cuda-native
 * does not yet, each with the reason. The coverage test requires every cpu-wasm op to have a cuda
 * kernel or an entry in some family's list. Every op of the family has a kernel now; smooth_l1 (an
 * elementwise SimpleOp) is left to the elementwise family's expression compiler, and
 * FullyConnected to the linalg family (cuBLAS), as on webgpu.
 */
export const LEFT_OUT: Readonly<Record<string, string>> = {};
