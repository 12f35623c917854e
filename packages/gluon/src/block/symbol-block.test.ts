/**
 * SymbolBlock.imports on the real Gluon 1.6 export (packages/symbol/src/__fixtures__/gluon-export):
 * its logits against the NumPy forward pass of tools/golden/graph/executor.py, its parameters by
 * graph name, and training through it.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import { SymbolBlock } from './symbol-block.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const FIX = `${ROOT}packages/symbol/src/__fixtures__/gluon-export/fashion-mnist`;
const golden = JSON.parse(readFileSync(`${ROOT}packages/symbol/src/__golden__/executor.json`, 'utf8')) as {
  fashion: { data: { shape: number[]; data: string }; logits: { shape: number[]; data: string } };
};
const decode = (a: { data: string }) => {
  const b = Buffer.from(a.data, 'base64');
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
};

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })] });
const { nd } = rt;
afterAll(() => rt.dispose());

describe('SymbolBlock.imports', () => {
  it('runs the Gluon 1.6 export to the NumPy logits and trains through it', async () => {
    const net = await SymbolBlock.imports(`${FIX}-symbol.json`, ['data'], `${FIX}-0039.params`, {
      runtime: rt,
    });
    expect([...net.collectParams().keys()]).toEqual([
      'hybridsequential16_conv0_weight',
      'hybridsequential16_conv0_bias',
      'hybridsequential16_dense0_weight',
      'hybridsequential16_dense0_bias',
      'hybridsequential16_dense1_weight',
      'hybridsequential16_dense1_bias',
    ]);
    const x = nd.array(decode(golden.fashion.data), { shape: golden.fashion.data.shape });
    const want = decode(golden.fashion.logits);
    const got = (net.forward(x) as NDArray).dataSync() as Float32Array;
    let worst = 0;
    for (let i = 0; i < want.length; i++)
      worst = Math.max(worst, Math.abs((got[i] as number) - (want[i] as number)));
    expect(worst).toBeLessThan(1e-5);

    const loss = rt.autograd.record(() => nd.sum(net.forward(x) as NDArray));
    loss.backward();
    const g = net.collectParams().get('hybridsequential16_dense1_bias')?.grad().dataSync() as Float32Array;
    // d sum(tanh(z)) / d bias = 1 - tanh(z)^2 summed over the batch: from the NumPy logits.
    const cols = golden.fashion.logits.shape[1] as number;
    for (let j = 0; j < cols; j++) {
      let s = 0;
      for (let r = 0; r < want.length / cols; r++) s += 1 - (want[r * cols + j] as number) ** 2;
      expect(g[j]).toBeCloseTo(s, 4);
    }
  });

  it('names the graph inputs when the data name is wrong', async () => {
    await expect(
      SymbolBlock.imports(`${FIX}-symbol.json`, ['input'], undefined, { runtime: rt }),
    ).rejects.toThrow(
      /input 'input' is not an input of the graph, whose inputs are data, hybridsequential16_conv0_weight/,
    );
  });
});
