/**
 * Normalization layers against PyTorch / NumPy (tools/golden/gluon/nn.py): BatchNorm in training
 * and inference mode with MXNet's momentum convention for the running statistics (also on the last
 * axis and with scale=false, i.e. fix_gamma), LayerNorm on the last and another axis, GroupNorm,
 * InstanceNorm on axis 1 and 2; outputs and gradients of input, gamma and beta. Plus deferred
 * channel inference, parameter names, gradReq of the fixed parameters and errors naming the layer.
 */
import { isMXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import { HybridSequential } from './basic.js';
import { Conv2D } from './conv.js';
import {
  disposeParams,
  expectClose,
  type GoldenArray,
  type GoldenCase,
  loadGolden,
  runCase,
  toNd,
} from './golden-case.test-util.js';
import {
  BatchNorm,
  type BatchNormOptions,
  GroupNorm,
  type GroupNormOptions,
  InstanceNorm,
  LayerNorm,
  type LayerNormOptions,
} from './norm.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })] });
const { nd } = rt;
afterAll(() => rt.dispose());

type NormCase = GoldenCase & {
  cls: string;
  options: BatchNormOptions & GroupNormOptions & LayerNormOptions;
  train?: boolean;
  running_mean_after?: GoldenArray;
  running_var_after?: GoldenArray;
};
const golden = loadGolden<Record<string, NormCase>>('norm');

const catchErr = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    expect(isMXNetError(e)).toBe(true);
    return String(e);
  }
  return expect.fail('expected an MXNetError');
};

describe('BatchNorm against PyTorch with MXNet momentum', () => {
  for (const [name, c] of Object.entries(golden).filter(([, v]) => v.cls === 'BatchNorm'))
    for (const hybridize of [false, true]) {
      it(`${name}${hybridize ? ' (hybridized)' : ''}: ${c.train ? 'train' : 'predict'} ${JSON.stringify(c.options)}`, async () => {
        await nd.leakCheck(() => {
          const bn = new BatchNorm(c.options);
          expect([...bn.collectParams().keys()]).toEqual(['gamma', 'beta', 'running_mean', 'running_var']);
          expect(bn.gamma.shape).toEqual([-1]);
          const fixGamma = c.options.scale === false;
          runCase(rt, bn, c, { train: c.train ?? true, skipGrads: fixGamma ? ['gamma'] : [], hybridize });
          const channels = c.x.shape.at(c.options.axis ?? 1) as number;
          expect(bn.running_var.shape).toEqual([channels]);
          expectClose(bn.running_mean.data(), c.running_mean_after as GoldenArray, 'running_mean');
          expectClose(bn.running_var.data(), c.running_var_after as GoldenArray, 'running_var');
          if (fixGamma) expect(() => bn.gamma.grad()).toThrow(/grad_req='null'/);
          expect(bn.running_mean.gradReq).toBe('null');
          disposeParams(bn);
        });
      });
    }

  it('leaves the running statistics alone outside training mode', async () => {
    await nd.leakCheck(() => {
      const c = golden.batchnorm_train as NormCase;
      const bn = new BatchNorm({ inChannels: 3 });
      bn.initialize(undefined, { runtime: rt });
      expect(bn.running_var.data().dataSync()).toEqual(new Float32Array([1, 1, 1]));
      const x = toNd(rt, c.x);
      bn.forward(x).dispose();
      expect(bn.running_mean.data().dataSync()).toEqual(new Float32Array([0, 0, 0]));
      expect(bn.running_var.data().dataSync()).toEqual(new Float32Array([1, 1, 1]));
      x.dispose();
      disposeParams(bn);
    });
  });

  it('keeps float32 parameters when cast to float16, and prints like MXNet', () => {
    const bn = new BatchNorm({ inChannels: 4, scale: false });
    bn.cast('float16');
    expect(bn.gamma.dtype).toBe('float32');
    bn.cast('float64');
    expect(bn.running_var.dtype).toBe('float64');
    expect(String(new BatchNorm())).toBe(
      'BatchNorm(axis=1, eps=1e-05, momentum=0.9, fix_gamma=False, use_global_stats=False, in_channels=None)',
    );
  });

  it('names the layer when the channel count changes or the axis does not exist', async () => {
    await nd.leakCheck(() => {
      const bn = new BatchNorm({ inChannels: 3 });
      bn.initialize(undefined, { runtime: rt });
      const x = nd.zeros([2, 4, 5]);
      expect(catchErr(() => bn.forward(x))).toContain(
        'BatchNorm expects 3 channels but got input of shape (2, 4, 5) (4 on axis 1)',
      );
      const bad = new BatchNorm({ axis: 3 });
      bad.initialize(undefined, { runtime: rt });
      expect(catchErr(() => bad.forward(x))).toContain(
        'BatchNorm(axis=3) got input of shape (2, 4, 5), which has no axis 3',
      );
      expect(bad.gamma.shape).toEqual([-1]);
      x.dispose();
      disposeParams(bn);
      disposeParams(bad);
    });
  });

  it('updates the running statistics when hybridized in a network', async () => {
    await nd.leakCheck(() => {
      const net = new HybridSequential(new Conv2D(3, 1, { inChannels: 2, useBias: false }), new BatchNorm());
      net.initialize(undefined, { runtime: rt });
      const x = nd.array(
        Float32Array.from({ length: 2 * 2 * 3 * 3 }, (_, i) => Math.cos(i)),
        { shape: [2, 2, 3, 3] },
      );
      // The batch mean of the conv output, from the imperative conv before hybridizing.
      const conv = (net.at(0) as Conv2D).forward(x);
      const mean = nd.mean(conv, { axis: [0, 2, 3] });
      const want = Float32Array.from(mean.dataSync() as Float32Array);
      net.hybridize();
      const y = rt.autograd.record(() => net.forward(x) as NDArray);
      y.backward();
      const after = net.collectParams().get('1.running_mean')?.data().dataSync() as Float32Array;
      // moving = 0.9 * 0 + 0.1 * batch mean.
      for (let i = 0; i < 3; i++) expect(after[i]).toBeCloseTo(0.1 * (want[i] as number), 6);
      for (const t of [x, y, conv, mean]) t.dispose();
      net.hybridize(false);
      disposeParams(net);
    });
  });
});

describe('LayerNorm, GroupNorm and InstanceNorm against PyTorch', () => {
  for (const [name, c] of Object.entries(golden).filter(([, v]) => v.cls !== 'BatchNorm'))
    for (const hybridize of [false, true]) {
      it(`${name}${hybridize ? ' (hybridized)' : ''}: ${c.cls}(${JSON.stringify(c.options)})`, async () => {
        await nd.leakCheck(() => {
          const layer =
            c.cls === 'LayerNorm'
              ? new LayerNorm(c.options)
              : c.cls === 'GroupNorm'
                ? new GroupNorm(c.options)
                : new InstanceNorm(c.options);
          expect([...layer.collectParams().keys()]).toEqual(['gamma', 'beta']);
          // InstanceNorm's scale defaults to false: gamma is used but not learned.
          const instance = layer instanceof InstanceNorm;
          runCase(rt, layer, c, { skipGrads: instance ? ['gamma'] : [], hybridize });
          if (instance) expect(layer.gamma.gradReq).toBe('null');
          expect(layer.inChannels).toBe(c.params.gamma?.shape[0]);
          disposeParams(layer);
        });
      });
    }

  it('names the layer for inputs it cannot normalize', async () => {
    await nd.leakCheck(() => {
      const x = nd.zeros([2, 6]);
      const gn = new GroupNorm(4);
      gn.initialize(undefined, { runtime: rt });
      expect(catchErr(() => gn.forward(x))).toContain(
        'GroupNorm(num_groups=4) got input of shape (2, 6): its 6 channels cannot be split into 4 groups',
      );
      const inorm = new InstanceNorm();
      inorm.initialize(undefined, { runtime: rt });
      expect(catchErr(() => inorm.forward(x))).toContain('InstanceNorm expects input with at least 3 axes');
      const ln = new LayerNorm({ inChannels: 4 });
      ln.initialize(undefined, { runtime: rt });
      expect(catchErr(() => ln.forward(x))).toContain(
        'LayerNorm expects 4 channels but got input of shape (2, 6)',
      );
      x.dispose();
      for (const b of [gn, inorm, ln]) disposeParams(b);
    });
    expect(() => new GroupNorm({ numGroups: 3, inChannels: 4 })).toThrow(
      /inChannels \(4\) must be divisible by numGroups \(3\)/,
    );
  });

  it('turns the gradients of beta and gamma off with center / scale', () => {
    const ln = new LayerNorm({ center: false, scale: false });
    expect([ln.gamma.gradReq, ln.beta.gradReq]).toEqual(['null', 'null']);
    const inorm = new InstanceNorm({ scale: true });
    expect([inorm.gamma.gradReq, inorm.beta.gradReq]).toEqual(['write', 'write']);
    expect(String(new GroupNorm(2))).toBe(
      'GroupNorm(eps=1e-05, num_groups=2, center=True, scale=True, in_channels=0)',
    );
  });
});
