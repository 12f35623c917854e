/**
 * Ops of the nn/conv family that cpu-wasm runs and cuda-native does not yet, each with the reason. The
 * coverage test requires every cpu-wasm op to have a cuda kernel or an entry in some family's list.
 */
export const LEFT_OUT: Readonly<Record<string, string>> = {};
