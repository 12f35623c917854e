/**
 * The nn/layers family's kernels, rendered from the nn_layers and nn_seq conformance cases on a
 * RenderRuntime (no GPU) and compiled with nvcc and NVRTC; plus the host-side planners (broadcast
 * plans, prelu geometry, row block sizes).
 */
import { describe, expect, it } from 'vitest';
import { itCompiles } from '../../../test-util/compile.js';
import { renderCases } from '../../../test-util/render.js';
import { preluGeometry } from './activation.js';
import { installNnLayers } from './index.js';
import { rowThreads } from './softmax.js';
import { bcastPlan } from './util.js';

describe('cuda nn/layers kernels', () => {
  const r = renderCases(['nn_layers', 'nn_seq'], undefined, (reg, host) => installNnLayers(reg, host));
  it('renders every case with arguments matching each kernel signature', () => {
    expect(r.errors).toEqual([]);
    expect(r.rt.problems).toEqual([]);
    expect([...r.ran.keys()].sort()).toEqual([
      'Activation',
      'CTCLoss',
      'Dropout',
      'Embedding',
      'LeakyReLU',
      'LinearRegressionOutput',
      'LogisticRegressionOutput',
      'MAERegressionOutput',
      'SequenceLast',
      'SequenceMask',
      'SequenceReverse',
      'SoftmaxOutput',
      'UpSampling',
      '_backward_Activation',
      '_backward_Dropout',
      '_backward_Embedding',
      '_backward_LeakyReLU',
      '_backward_SequenceLast',
      '_backward_SequenceMask',
      '_backward_SequenceReverse',
      '_backward_SoftmaxOutput',
      '_backward_UpSampling',
      '_backward_ctc_loss',
      '_backward_linear_reg_out',
      '_backward_log_softmax',
      '_backward_logistic_reg_out',
      '_backward_mae_reg_out',
      '_backward_masked_log_softmax',
      '_backward_masked_softmax',
      '_backward_softmax',
      'log_softmax',
      'masked_log_softmax',
      'masked_softmax',
      'softmax',
    ]);
    // Ops of the golden files this family leaves to others: FullyConnected (linalg), smooth_l1 (elementwise).
    expect([...r.missing].sort()).toEqual(['FullyConnected', '_backward_FullyConnected', 'smooth_l1']);
  });
  itCompiles(() => [r.rt]);
});

describe('nn/layers host planners', () => {
  it('merges broadcast dims and zeroes broadcast strides', () => {
    expect(bcastPlan('t', [2, 3, 4], [2, 1, 4])).toEqual({ shape: [2, 3, 4], stride: [4, 0, 1] });
    expect(bcastPlan('t', [2, 3, 4], [1, 1, 4])).toEqual({ shape: [6, 4], stride: [0, 1] });
    expect(bcastPlan('t', [2, 3, 4], [2, 3, 4])).toEqual({ shape: [24], stride: [1] });
    expect(bcastPlan('t', [5, 3], [1, 5, 1].slice(1))).toEqual({ shape: [5, 3], stride: [1, 0] });
    expect(() => bcastPlan('t', [2, 3], [3, 3])).toThrow(/cannot broadcast/);
  });
  it('places prelu gamma on data axes 0 and 1', () => {
    expect(preluGeometry([3], [2, 3, 4])).toEqual({ outer: 2, C: 3, inner: 4 });
    expect(preluGeometry([1], [2, 3, 4])).toEqual({ outer: 1, C: 1, inner: 24 });
    expect(preluGeometry([2, 3], [2, 3, 4])).toEqual({ outer: 1, C: 6, inner: 4 });
  });
  it('picks warp-multiple row blocks', () => {
    expect([1, 32, 33, 100, 128, 255, 256, 10000].map(rowThreads)).toEqual([
      32, 32, 32, 64, 128, 128, 256, 256,
    ]);
  });
});
