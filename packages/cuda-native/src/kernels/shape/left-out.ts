/**
 * Ops of the shape family that cpu-wasm runs and cuda-native does not yet, each with the reason. The
 * coverage test requires every cpu-wasm op to have a cuda kernel or an entry in some family's list.
 * The family (webgpu's shape family: layout, joins/splits, slices and their gradients, take/pick/
 * one_hot and gradients, tile/repeat gradients, Pad and its gradient, diag, `_backward_Cast`) is
 * complete, so nothing is listed.
 */
export const LEFT_OUT: Readonly<Record<string, string>> = {};
