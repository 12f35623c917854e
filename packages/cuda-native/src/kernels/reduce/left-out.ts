/**
 * Ops of the reduce family that cpu-wasm runs and cuda-native does not yet, each with the reason. The
 * coverage test requires every cpu-wasm op to have a cuda kernel or an entry in some family's list.
 *
 * Empty: every op of the family (webgpu's reduce family: sum, mean, prod, max, min, nansum, nanprod,
 * norm, argmax, argmin, sort, argsort, topk, _np_cumsum, _broadcast_backward, _backward_sum,
 * _backward_mean, _backward_topk) has a cuda kernel. cpu-wasm's reduce folder also registers
 * `_backward_tile`, `_backward_repeat` (webgpu: the shape family) and `_backward_dot` (webgpu: the
 * linalg family); those belong to these families here too.
 */
export const LEFT_OUT: Readonly<Record<string, string>> = {};
