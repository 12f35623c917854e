/**
 * Parameter files beyond our own: a Gluon 2.0-style `.npz` (NumPy's format, structural names;
 * tools/golden/gluon/npz_params.py) loads into a fresh block; `shareParameters` makes two blocks
 * train one set of weights; `cast` reaches children.
 */
import { fileURLToPath } from 'node:url';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import { Dense } from '../nn/basic.js';
import { HybridBlock } from './hybrid-block.js';

const NPZ = fileURLToPath(new URL('../__fixtures__/mlp-2.0.npz', import.meta.url));
const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 32 })] });
const { nd, autograd } = rt;
afterAll(() => rt.dispose());

class Mlp extends HybridBlock {
  fc1 = new Dense(8, { activation: 'relu' });
  fc2 = new Dense(3);
  forward(x: NDArray): NDArray {
    return this.fc2.forward(this.fc1.forward(x));
  }
}

/** The generator's values: float32(sin(i * 0.37 + phase)). */
const expected = (n: number, phase: number) =>
  Array.from({ length: n }, (_, i) => Math.fround(Math.sin(i * 0.37 + phase)));

describe('parameter files and sharing', () => {
  it('loads a 2.0 .npz of structural names into a fresh block (shapes from the file)', async () => {
    const net = new Mlp();
    await net.loadParameters(NPZ, { runtime: rt });
    expect(net.fc1.weight.shape).toEqual([8, 5]);
    expect(Array.from(net.fc1.weight.data().dataSync() as Float32Array)).toEqual(expected(40, 0));
    expect(Array.from(net.fc2.bias?.data().dataSync() as Float32Array)).toEqual(expected(3, 3));
    const y = net.forward(nd.ones([2, 5]));
    expect(y.shape).toEqual([2, 3]);
  });

  it('shares parameters: both blocks read and train the same arrays', () => {
    const a = new Mlp();
    a.initialize(undefined, { runtime: rt });
    a.forward(nd.ones([1, 5])).dispose();
    const b = new Mlp().shareParameters(a.collectParams());
    expect(b.fc1.weight).toBe(a.fc1.weight);
    const x = nd.ones([2, 5]);
    expect(b.forward(x).dataSync()).toEqual(a.forward(x).dataSync());
    autograd.record(() => nd.sum(b.forward(x))).backward();
    expect(Array.from(a.fc2.bias?.grad().dataSync() as Float32Array)).toEqual([2, 2, 2]);
  });

  it('casts every child parameter', () => {
    const net = new Mlp();
    net.initialize(undefined, { runtime: rt });
    net.forward(nd.ones([1, 5])).dispose();
    net.cast('float64');
    expect([...net.collectParams().values()].map((p) => p.data().dtype)).toEqual(Array(4).fill('float64'));
    expect(net.forward(nd.ones([1, 5], { dtype: 'float64' })).dtype).toBe('float64');
  });
});
