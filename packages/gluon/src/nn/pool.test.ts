/**
 * Pooling layers against PyTorch (tools/golden/gluon/nn.py): max and average pooling in 1-3 D with
 * strides, padding, ceil mode and count_include_pad, the global forms, output and input gradient;
 * the pool size positionally or in the options; MXNet's repr; errors that name the layer.
 */
import { isMXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import { type GoldenCase, loadGolden, runCase } from './golden-case.test-util.js';
import {
  AvgPool1D,
  AvgPool2D,
  AvgPool3D,
  type AvgPoolOptions,
  GlobalAvgPool1D,
  GlobalAvgPool2D,
  GlobalAvgPool3D,
  GlobalMaxPool1D,
  GlobalMaxPool2D,
  GlobalMaxPool3D,
  MaxPool1D,
  MaxPool2D,
  MaxPool3D,
  type PoolBase,
} from './pool.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })] });
const { nd } = rt;
afterAll(() => rt.dispose());

type PoolCase = GoldenCase & { cls: string; options: AvgPoolOptions };
const golden = loadGolden<Record<string, PoolCase>>('pool');

const CLASSES: Record<string, (o: AvgPoolOptions) => PoolBase> = {
  MaxPool1D: (o) => new MaxPool1D(o),
  MaxPool2D: (o) => new MaxPool2D(o),
  MaxPool3D: (o) => new MaxPool3D(o),
  AvgPool1D: (o) => new AvgPool1D(o),
  AvgPool2D: (o) => new AvgPool2D(o),
  AvgPool3D: (o) => new AvgPool3D(o),
  GlobalMaxPool1D: () => new GlobalMaxPool1D(),
  GlobalMaxPool2D: () => new GlobalMaxPool2D(),
  GlobalMaxPool3D: () => new GlobalMaxPool3D(),
  GlobalAvgPool1D: () => new GlobalAvgPool1D(),
  GlobalAvgPool2D: () => new GlobalAvgPool2D(),
  GlobalAvgPool3D: () => new GlobalAvgPool3D(),
};

describe('pooling layers against PyTorch', () => {
  for (const [name, c] of Object.entries(golden))
    for (const hybridize of [false, true]) {
      it(`${name}${hybridize ? ' (hybridized)' : ''}: ${c.cls}(${JSON.stringify(c.options)})`, async () => {
        await nd.leakCheck(() => {
          const make = CLASSES[c.cls] as (o: AvgPoolOptions) => PoolBase;
          runCase(rt, make(c.options), c, { hybridize });
        });
      });
    }
});

describe('pooling layer arguments', () => {
  it('takes the pool size positionally or in the options, strides defaulting to it', () => {
    expect(String(new MaxPool2D())).toBe(
      'MaxPool2D(size=(2, 2), stride=(2, 2), padding=(0, 0), ceil_mode=False, global_pool=False, pool_type=max, layout=NCHW)',
    );
    const a = new AvgPool1D(3, { strides: 1, padding: 1, ceilMode: true });
    expect([a.poolSize, a.strides, a.padding, a.ceilMode, a.countIncludePad]).toEqual([
      [3],
      [1],
      [1],
      true,
      true,
    ]);
    const b = new AvgPool3D({ poolSize: [1, 2, 3], countIncludePad: false, layout: 'NDHWC' });
    expect([b.poolSize, b.strides, b.countIncludePad, b.layout]).toEqual([
      [1, 2, 3],
      [1, 2, 3],
      false,
      'NDHWC',
    ]);
    expect(new MaxPool1D(4).countIncludePad).toBeUndefined();
    expect(String(new GlobalAvgPool2D('NHWC'))).toBe(
      'GlobalAvgPool2D(size=(1, 1), stride=(1, 1), padding=(0, 0), ceil_mode=True, global_pool=True, pool_type=avg, layout=NHWC)',
    );
  });

  it('names the layer for a wrong rank, a wrong pool size length or layout', async () => {
    await nd.leakCheck(() => {
      const pool = new MaxPool2D(2);
      const x = nd.zeros([1, 2, 8]);
      try {
        pool.forward(x);
        expect.unreachable();
      } catch (e) {
        expect(isMXNetError(e)).toBe(true);
        expect(String(e)).toContain('MaxPool2D expects 4-D input (NCHW) but got input of shape (1, 2, 8)');
      }
      x.dispose();
    });
    expect(() => new AvgPool2D([2, 2, 2])).toThrow(
      /AvgPool2D: pool_size must be a number or a list of 2 ints/,
    );
    expect(() => new MaxPool1D(2, { layout: 'NCHW' })).toThrow(
      /MaxPool1D: only NCW and NWC layouts are valid for 1D Pooling/,
    );
    expect(() => new MaxPool2D(2, { strides: 0 })).toThrow(/every strides value must be an integer >= 1/);
  });
});
