/**
 * Convolution layers against PyTorch (tools/golden/gluon/nn.py): output and the gradients of input,
 * weight and bias for Conv1D-3D and Conv1D-3DTranspose with strides, padding, dilation, groups,
 * output padding and a fused activation; shape inference with and without inChannels; and the
 * errors that name the layer. Every case runs under leakCheck.
 */
import { isMXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import { HybridSequential } from './basic.js';
import {
  Conv1D,
  Conv1DTranspose,
  Conv2D,
  Conv2DTranspose,
  Conv3D,
  Conv3DTranspose,
  type ConvBase,
  type ConvTransposeOptions,
} from './conv.js';
import { disposeParams, type GoldenCase, loadGolden, runCase } from './golden-case.test-util.js';
import { MaxPool2D } from './pool.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })] });
const { nd } = rt;
afterAll(() => rt.dispose());

type ConvCase = GoldenCase & {
  cls: string;
  channels: number;
  kernelSize: number | number[];
  options: ConvTransposeOptions;
};
const golden = loadGolden<Record<string, ConvCase>>('conv');

const CLASSES: Record<string, new (c: number, k: number | number[], o: ConvTransposeOptions) => ConvBase> = {
  Conv1D,
  Conv2D,
  Conv3D,
  Conv1DTranspose,
  Conv2DTranspose,
  Conv3DTranspose,
};

const build = (c: ConvCase, extra: ConvTransposeOptions = {}) =>
  new (CLASSES[c.cls] as (typeof CLASSES)[string])(c.channels, c.kernelSize, { ...c.options, ...extra });

describe('convolution layers against PyTorch', () => {
  for (const [name, c] of Object.entries(golden))
    for (const hybridize of [false, true]) {
      it(`${name}${hybridize ? ' (hybridized)' : ''}: ${c.cls}(${c.channels}, ${JSON.stringify(c.kernelSize)}, ${JSON.stringify(c.options)})`, async () => {
        await nd.leakCheck(() => {
          const layer = build(c);
          // inChannels omitted: the weight's input-channel entry is unknown until the first forward.
          expect(layer.weight.shape).toContain(-1);
          expect(layer.inChannels).toBeUndefined();
          runCase(rt, layer, c, { hybridize });
          expect(layer.weight.shape).toEqual(c.params.weight?.shape);
          expect(layer.inChannels).toBe(c.x.shape[1]);
          disposeParams(layer);
        });
      });
    }

  it('knows the weight shape up front when inChannels is given, and initializes without deferral', async () => {
    await nd.leakCheck(() => {
      const c = golden.conv2d_transpose as ConvCase;
      const layer = build(c, { inChannels: 4 });
      expect(layer.weight.shape).toEqual([4, 3, 3, 3]);
      layer.initialize(undefined, { runtime: rt });
      expect(layer.weight.data().shape).toEqual([4, 3, 3, 3]);
      disposeParams(layer);
      const conv = new Conv2D(8, 3, { inChannels: 6, groups: 2 });
      expect(conv.weight.shape).toEqual([8, 3, 3, 3]);
      expect(String(conv)).toBe('Conv2D(6 -> 8, kernel_size=(3, 3), stride=(1, 1), groups=2)');
    });
  });

  it('prints like MXNet', () => {
    expect(String(new Conv2D(16, 3, { padding: 1, useBias: false, activation: 'relu' }))).toBe(
      'Conv2D(None -> 16, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1), bias=False, Activation(relu))',
    );
    expect(String(new Conv1DTranspose(4, 3, { strides: 2, outputPadding: 1, dilation: 2 }))).toBe(
      'Conv1DTranspose(None -> 4, kernel_size=(3,), stride=(2,), dilation=(2,), output_padding=(1,))',
    );
  });

  it('runs hybridized with the same result as imperatively', async () => {
    await nd.leakCheck(() => {
      const make = () =>
        new HybridSequential(new Conv2D(4, 3, { padding: 1, activation: 'relu' }), new MaxPool2D());
      const a = make();
      const b = make();
      a.initialize(undefined, { runtime: rt });
      b.initialize(undefined, { runtime: rt });
      const x = nd.array(
        Float32Array.from({ length: 2 * 3 * 6 * 6 }, (_, i) => Math.sin(i * 0.3)),
        {
          shape: [2, 3, 6, 6],
        },
      );
      (a.forward(x) as NDArray).dispose();
      for (const [k, p] of b.collectParams()) p.setData(a.collectParams().get(k)?.data() as NDArray);
      b.hybridize();
      const ya = a.forward(x) as NDArray;
      const yb = b.forward(x) as NDArray;
      expect(yb.shape).toEqual([2, 4, 3, 3]);
      expect(yb.dataSync()).toEqual(ya.dataSync());
      b.hybridize(false);
      for (const t of [x, ya, yb]) t.dispose();
      disposeParams(a);
      disposeParams(b);
    });
  });
});

describe('convolution layer errors', () => {
  const catchErr = (f: () => unknown): string => {
    try {
      f();
    } catch (e) {
      expect(isMXNetError(e)).toBe(true);
      return String(e);
    }
    return expect.fail('expected an MXNetError');
  };

  it('names the layer for a wrong input rank, and keeps the weight shape unknown', async () => {
    await nd.leakCheck(() => {
      const conv = new Conv2D(4, 3);
      conv.initialize(undefined, { runtime: rt });
      const x = nd.zeros([2, 3, 5]);
      expect(catchErr(() => conv.forward(x))).toContain(
        'Conv2D(None -> 4, kernel_size=(3, 3), stride=(1, 1)) expects 4-D input (NCHW) but got input of shape (2, 3, 5)',
      );
      expect(conv.weight.shape).toEqual([4, -1, 3, 3]);
      x.dispose();
      disposeParams(conv);
    });
  });

  it('names the layer when the channels do not match inChannels or the first input', async () => {
    await nd.leakCheck(() => {
      const conv = new Conv1D(4, 3, { inChannels: 6 });
      conv.initialize(undefined, { runtime: rt });
      const x = nd.zeros([1, 5, 8]);
      expect(catchErr(() => conv.forward(x))).toContain(
        'Conv1D(6 -> 4, kernel_size=(3,), stride=(1,)) expects 6 input channels but got input of shape (1, 5, 8) (5 channels on axis 1)',
      );
      x.dispose();
      disposeParams(conv);

      const t = new Conv2DTranspose(2, 2);
      t.initialize(undefined, { runtime: rt });
      const a = nd.zeros([1, 3, 4, 4]);
      t.forward(a).dispose();
      const b = nd.zeros([1, 5, 4, 4]);
      expect(catchErr(() => t.forward(b))).toContain(
        'expects 3 input channels but got input of shape (1, 5, 4, 4)',
      );
      for (const v of [a, b]) v.dispose();
      disposeParams(t);
    });
  });

  it('refuses channels that groups cannot split, and bad constructor arguments', async () => {
    await nd.leakCheck(() => {
      const conv = new Conv2D(4, 3, { groups: 2 });
      conv.initialize(undefined, { runtime: rt });
      const x = nd.zeros([1, 3, 5, 5]);
      expect(catchErr(() => conv.forward(x))).toContain('its 3 channels cannot be split into 2 groups');
      x.dispose();
      disposeParams(conv);
    });
    expect(catchErr(() => new Conv2D(5, 3, { groups: 2 }))).toContain(
      'channels (5) must be divisible by groups (2)',
    );
    expect(catchErr(() => new Conv2D(4, [3, 3, 3]))).toContain(
      'Conv2D: kernel_size must be a number or a list of 2 ints',
    );
    expect(catchErr(() => new Conv1D(4, 3, { layout: 'NCHW' }))).toContain(
      "Conv1D: only supports 'NCW' layout",
    );
    expect(catchErr(() => new Conv3D(0, 3))).toContain('Conv3D: channels must be a positive integer');
  });
});
