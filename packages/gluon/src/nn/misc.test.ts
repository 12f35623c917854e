/**
 * Embedding, ReflectionPad2D, PixelShuffle1D-3D, Concatenate and HybridConcatenate against
 * PyTorch / NumPy (tools/golden/gluon/nn.py): outputs and gradients (the embedding weight's by
 * index-add, the pixel shuffles' as the inverse permutation); containers' parameter names; errors
 * that name the layer.
 */
import { isMXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import type { HybridBlock } from '../block/hybrid-block.js';
import { Dense, Identity } from './basic.js';
import {
  disposeParams,
  expectClose,
  type GoldenArray,
  type GoldenCase,
  loadGolden,
  runCase,
  setParams,
  toNd,
} from './golden-case.test-util.js';
import {
  Concatenate,
  Embedding,
  HybridConcatenate,
  PixelShuffle1D,
  PixelShuffle2D,
  PixelShuffle3D,
  ReflectionPad2D,
} from './misc.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })] });
const { nd } = rt;
afterAll(() => rt.dispose());

type MiscCase = GoldenCase & { cls: string; args: unknown[] };
const golden = loadGolden<Record<string, MiscCase>>('misc');

const BUILD: Record<string, (args: unknown[]) => HybridBlock> = {
  Embedding: (a) => new Embedding(a[0] as number, a[1] as number),
  ReflectionPad2D: (a) => new ReflectionPad2D(a[0] as number),
  PixelShuffle1D: (a) => new PixelShuffle1D(a[0] as number),
  PixelShuffle2D: (a) => new PixelShuffle2D(a[0] as number[]),
  PixelShuffle3D: (a) => new PixelShuffle3D(a[0] as number[]),
};

const catchErr = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    expect(isMXNetError(e)).toBe(true);
    return String(e);
  }
  return expect.fail('expected an MXNetError');
};

describe('layers against PyTorch / NumPy', () => {
  for (const [name, c] of Object.entries(golden).filter(([, v]) => v.cls !== undefined))
    for (const hybridize of [false, true]) {
      it(`${name}${hybridize ? ' (hybridized)' : ''}: ${c.cls}(${c.args.map((a) => JSON.stringify(a)).join(', ')})`, async () => {
        await nd.leakCheck(() => {
          const layer = (BUILD[c.cls] as (args: unknown[]) => HybridBlock)(c.args);
          // Indices have no gradient.
          runCase(rt, layer, c, { skipGrads: c.cls === 'Embedding' ? ['x'] : [], hybridize });
          disposeParams(layer);
        });
      });
    }

  const concatCase = (name: string) =>
    golden[name] as unknown as { x: GoldenArray; params: Record<string, GoldenArray>; y: GoldenArray };

  it('HybridConcatenate(-1) joins Dense(4) and Identity on the last axis, also hybridized', async () => {
    await nd.leakCheck(() => {
      const c = concatCase('concatenate');
      const net = new HybridConcatenate();
      net.add(new Dense(4), new Identity());
      expect([...net.collectParams().keys()]).toEqual(['0.weight', '0.bias']);
      net.initialize(undefined, { runtime: rt });
      setParams(net, rt, c.params);
      const x = toNd(rt, c.x);
      const y = net.forward(x) as NDArray;
      expectClose(y, c.y, 'y');
      net.hybridize();
      const yh = net.forward(x) as NDArray;
      expectClose(yh, c.y, 'y hybridized');
      net.hybridize(false);
      for (const t of [x, y, yh]) t.dispose();
      disposeParams(net);
    });
  });

  it('Concatenate(1) joins two Dense layers', async () => {
    await nd.leakCheck(() => {
      const c = concatCase('concatenate_two');
      const net = new Concatenate(1);
      net.add(new Dense(4), new Dense(2));
      net.initialize(undefined, { runtime: rt });
      setParams(net, rt, c.params);
      const x = toNd(rt, c.x);
      const y = net.forward(x) as NDArray;
      expectClose(y, c.y, 'y');
      for (const t of [x, y]) t.dispose();
      disposeParams(net);
    });
  });
});

describe('argument and input checks', () => {
  it('Embedding prints like MXNet; sparseGrad gives the weight a row_sparse gradient', () => {
    expect(String(new Embedding(10, 4))).toBe('Embedding(10 -> 4, float32)');
    expect(new Embedding(10, 4, { dtype: 'float64' }).weight.dtype).toBe('float64');
    expect(new Embedding(10, 4, { sparseGrad: true }).weight.gradStype).toBe('row_sparse');
    expect(new Embedding(10, 4).weight.gradStype).toBe('default');
  });

  it('pixel shuffles and padding name the layer for inputs they cannot take', async () => {
    await nd.leakCheck(() => {
      const x = nd.zeros([1, 6, 2, 2]);
      expect(catchErr(() => new PixelShuffle2D(2).forward(x))).toContain(
        'PixelShuffle2D((2, 2)) got input of shape (1, 6, 2, 2): its 6 channels are not divisible by the factor product 4',
      );
      expect(catchErr(() => new PixelShuffle1D(2).forward(x))).toContain(
        'PixelShuffle1D expects 3-D input (NCW) but got input of shape (1, 6, 2, 2)',
      );
      const y = nd.zeros([6, 2, 2]);
      expect(catchErr(() => new ReflectionPad2D(1).forward(y))).toContain(
        'ReflectionPad2D expects 4-D input (NCHW)',
      );
      for (const t of [x, y]) t.dispose();
    });
    expect(catchErr(() => new PixelShuffle3D([2, 2]))).toContain(
      'PixelShuffle3D: factor must be a number or a list of 3 ints',
    );
    expect(catchErr(() => new ReflectionPad2D([1, 1]))).toContain('8 pad widths');
    expect(String(new ReflectionPad2D(3))).toBe('ReflectionPad2D((0, 0, 0, 0, 3, 3, 3, 3))');
  });

  it('an empty Concatenate is an error, not an empty array', async () => {
    await nd.leakCheck(() => {
      const x = nd.zeros([2, 3]);
      expect(catchErr(() => new HybridConcatenate().forward(x))).toContain(
        'HybridConcatenate has no children to concatenate',
      );
      x.dispose();
    });
  });
});
