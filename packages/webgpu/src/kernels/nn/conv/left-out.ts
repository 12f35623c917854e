/**
 * Ops of this family that cpu-wasm runs and webgpu does not, each with the reason. The coverage
 * test requires every cpu-wasm op to have a webgpu kernel or an entry here, and no entry for an op
 * that has one; the conformance suite skips these ops' cases with the reason.
 */
export const LEFT_OUT: Readonly<Record<string, string>> = {};
