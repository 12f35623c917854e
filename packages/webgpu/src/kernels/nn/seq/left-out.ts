/**
 * Ops of this family that cpu-wasm runs and webgpu does not, each with the reason. The coverage
 * test requires every cpu-wasm op to have a webgpu kernel or an entry here, and no entry for an op
 * that has one; the conformance suite skips these ops' cases with the reason.
 */
export const LEFT_OUT: Readonly<Record<string, string>> = {
  CTCLoss: 'not implemented yet',
  Embedding: 'not implemented yet',
  SequenceLast: 'not implemented yet',
  SequenceMask: 'not implemented yet',
  SequenceReverse: 'not implemented yet',
  UpSampling: 'not implemented yet',
  _backward_Embedding: 'not implemented yet',
  _backward_SequenceLast: 'not implemented yet',
  _backward_SequenceMask: 'not implemented yet',
  _backward_SequenceReverse: 'not implemented yet',
  _backward_UpSampling: 'not implemented yet',
  _backward_ctc_loss: 'not implemented yet',
};
