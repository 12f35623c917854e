/**
 * Convolution, Deconvolution and Pooling on gpu(0) against cpu-wasm beyond the golden cases:
 * groups + dilation + stride + asymmetric padding together, every gradient with req add and with
 * req null, a weight gradient large enough to take the split-K path, 1-D and 3-D, Deconvolution
 * with groups and target_shape, and max pooling ties (first maximum takes the gradient).
 */
import { describe, it } from 'vitest';
import { gpuTestEnv } from '../../../test-util/gpu.js';
import { compareWithCpu } from '../../linalg/test-util.js';

const env = await gpuTestEnv();
const d = typeof env === 'string' ? describe.skip : describe;
const E = env as Exclude<typeof env, string>;

const conv = {
  kernel: [3, 2],
  num_filter: 6,
  num_group: 2,
  stride: [2, 3],
  dilate: [2, 1],
  pad: [1, 2],
};
const convShapes = [[3, 4, 11, 13], [6, 2, 3, 2], [6]];

d('webgpu conv vs cpu', () => {
  it('Convolution with groups, dilation, stride and padding (write and add)', async () => {
    await compareWithCpu(E.runtime, { op: 'Convolution', shapes: convShapes, params: conv });
    await compareWithCpu(E.runtime, { op: 'Convolution', shapes: convShapes, params: conv, add: true });
  });

  it('_backward_Convolution: every gradient, req add and req null', async () => {
    const bwd = [[3, 6, 5, 6], ...convShapes];
    await compareWithCpu(E.runtime, { op: '_backward_Convolution', shapes: bwd, params: conv });
    await compareWithCpu(E.runtime, { op: '_backward_Convolution', shapes: bwd, params: conv, add: true });
    await compareWithCpu(E.runtime, {
      op: '_backward_Convolution',
      shapes: bwd,
      params: conv,
      skip: [true, false, true],
    });
  });

  it('split-K weight gradient, 1-D and 3-D', async () => {
    const p = { kernel: [3, 3], num_filter: 8, pad: [1, 1] };
    await compareWithCpu(E.runtime, {
      op: '_backward_Convolution',
      shapes: [[2, 8, 32, 32], [2, 4, 32, 32], [8, 4, 3, 3], [8]],
      params: p,
      add: true,
      atol: 5e-4,
    });
    const p1 = { kernel: [5], num_filter: 4, stride: [2], dilate: [3], pad: [4], no_bias: true };
    await compareWithCpu(E.runtime, {
      op: 'Convolution',
      shapes: [
        [2, 3, 40],
        [4, 3, 5],
      ],
      params: p1,
    });
    await compareWithCpu(E.runtime, {
      op: '_backward_Convolution',
      shapes: [
        [2, 4, 18],
        [2, 3, 40],
        [4, 3, 5],
      ],
      params: p1,
    });
    const p3 = { kernel: [2, 3, 2], num_filter: 4, num_group: 2, stride: [2, 1, 2], pad: [1, 1, 0] };
    await compareWithCpu(E.runtime, {
      op: '_backward_Convolution',
      shapes: [[1, 4, 4, 5, 3], [1, 2, 6, 5, 6], [4, 1, 2, 3, 2], [4]],
      params: p3,
    });
  });

  it('Deconvolution with groups, dilation and target_shape (forward and backward)', async () => {
    const p = {
      kernel: [3, 3],
      num_filter: 6,
      num_group: 2,
      stride: [2, 2],
      dilate: [1, 2],
      target_shape: [12, 14],
      no_bias: false,
    };
    await compareWithCpu(E.runtime, {
      op: 'Deconvolution',
      shapes: [[2, 4, 6, 6], [4, 3, 3, 3], [6]],
      params: p,
      add: true,
    });
    await compareWithCpu(E.runtime, {
      op: '_backward_Deconvolution',
      shapes: [[2, 6, 12, 14], [2, 4, 6, 6], [4, 3, 3, 3], [6]],
      params: p,
      add: true,
    });
  });

  it('Pooling: max ties, avg without padding count, lp3, channel-last, req add', async () => {
    const rt = E.runtime;
    const max = { kernel: [3, 3], stride: [2, 2], pad: [1, 1], pooling_convention: 'full' };
    await compareWithCpu(rt, { op: 'Pooling', shapes: [[2, 3, 9, 8]], params: max, ints: true });
    await compareWithCpu(rt, {
      op: '_backward_Pooling',
      shapes: [
        [2, 3, 5, 5],
        [2, 3, 9, 8],
        [2, 3, 5, 5],
      ],
      params: max,
      ints: true,
      add: true,
    });
    const avg = { pool_type: 'avg', kernel: [3, 2], stride: [1, 2], pad: [1, 1], count_include_pad: false };
    await compareWithCpu(rt, { op: 'Pooling', shapes: [[2, 3, 7, 8]], params: avg, add: true });
    await compareWithCpu(rt, {
      op: '_backward_Pooling',
      shapes: [
        [2, 3, 7, 5],
        [2, 3, 7, 8],
        [2, 3, 7, 5],
      ],
      params: avg,
    });
    const lp = { pool_type: 'lp', p_value: 3, kernel: [2, 2], stride: [2, 2], layout: 'NHWC' };
    await compareWithCpu(rt, { op: 'Pooling', shapes: [[2, 6, 6, 3]], params: lp, atol: 1e-3, rtol: 1e-3 });
  });
});
