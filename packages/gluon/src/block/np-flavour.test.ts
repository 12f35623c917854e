/**
 * np arrays through Gluon (issue 16 item 5): a block called with an `np.ndarray` returns np arrays,
 * eagerly and hybridized, with the same values as with NDArray input; gradients reach the
 * parameters either way; NDArray input keeps giving NDArrays.
 */
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createNp, createRuntime, type NDArray, ndarray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import { Dense, HybridSequential } from '../nn/basic.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })], seed: 3 });
createNp(rt); // np arrays come from asNpArray below
afterAll(() => rt.dispose());

function net(): HybridSequential {
  const n = new HybridSequential();
  n.add(new Dense(5, { activation: 'relu' }), new Dense(3));
  n.initialize();
  return n;
}

const data = Float32Array.from({ length: 8 }, (_, i) => Math.sin(i + 1));

describe('Gluon with np arrays', () => {
  for (const hybridize of [false, true]) {
    it(`np in, np out, same values as NDArray in (${hybridize ? 'hybridized' : 'eager'})`, async () => {
      const n = net();
      if (hybridize) n.hybridize();
      const xd = rt.nd.array(data, { shape: [2, 4] });
      const xn = rt.nd.array(data, { shape: [2, 4] }).asNpArray();
      // The first calls initialize the parameters and trace; the leak check covers later calls.
      const step = () => {
        const [out, loss] = rt.autograd.record(() => {
          const o = n.forward(xn) as ndarray;
          return [o, o.sum()] as const;
        });
        loss.backward();
        return [out, loss] as const;
      };
      (n.forward(xd) as NDArray).dispose();
      for (const a of step()) a.dispose();
      await rt.nd.leakCheck(async () => {
        const yd = n.forward(xd) as NDArray;
        const yn = n.forward(xn) as NDArray;
        expect(yd).not.toBeInstanceOf(ndarray);
        expect(yn).toBeInstanceOf(ndarray);
        const values = async (a: NDArray) => Array.from((await a.data()) as ArrayLike<number>);
        expect(await values(yn)).toEqual(await values(yd));
        // Gradients reach the parameters through an np forward.
        const [out, loss] = step();
        expect(loss).toBeInstanceOf(ndarray);
        const w = n.collectParams().get('0.weight')?.grad() as NDArray;
        expect((await values(w)).some((v) => v !== 0)).toBe(true);
        for (const a of [yd, yn, out, loss]) a.dispose();
      });
      xd.dispose();
      xn.dispose();
    });
  }
});
