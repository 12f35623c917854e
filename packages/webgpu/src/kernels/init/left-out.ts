/**
 * Ops of this family that cpu-wasm runs and webgpu does not, each with the reason. The coverage
 * test requires every cpu-wasm op to have a webgpu kernel or an entry here, and no entry for an op
 * that has one; the conformance suite skips these ops' cases with the reason.
 */
export const LEFT_OUT: Readonly<Record<string, string>> = {
  _arange: 'not implemented yet',
  _copyto: 'not implemented yet',
  _eye: 'not implemented yet',
  _full: 'not implemented yet',
  _linspace: 'not implemented yet',
  _ones: 'not implemented yet',
  _random_normal: 'not implemented yet',
  _random_randint: 'not implemented yet',
  _random_uniform: 'not implemented yet',
  _zeros: 'not implemented yet',
  ones_like: 'not implemented yet',
  zeros_like: 'not implemented yet',
};
