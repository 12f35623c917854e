/**
 * Destinations for custom backwards: autograd offers a variable's own `.grad` to the one node that
 * sends it a gradient (gradReq 'write', not an `autograd.grad` target), so a CachedOp can write the
 * gradient in place; with a second consumer, gradReq 'add' or as a target, nothing is offered and
 * the usual sum-and-deliver gives the same values.
 */
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { afterAll, describe, expect, it } from 'vitest';
import type { NDArray } from '../ndarray.js';
import { createRuntime } from '../runtime.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 16 })] });
const { nd, autograd } = rt;
afterAll(() => rt.dispose());

/** y = 2·x as a custom node; its backward writes into the offered buffer when there is one. */
function double(x: NDArray, offered: (NDArray | undefined)[]): NDArray {
  const y = autograd.pause(() => nd.multiply(x, 2));
  autograd.recordCustom(
    'double',
    (ograds, dests) => {
      const d = dests?.[0];
      offered.push(d);
      if (d !== undefined) {
        nd._mul_scalar(ograds[0] as NDArray, { scalar: 2, out: d });
        return [d];
      }
      return [nd.multiply(ograds[0] as NDArray, 2)];
    },
    [x],
    [y],
  );
  return y;
}

const values = (a: NDArray | undefined) => Array.from(a?.dataSync() as Float32Array);

describe('custom backward destinations', () => {
  it('offers the .grad of a variable that only this node reads, and keeps it (no copy, no dispose)', async () => {
    await rt.leakCheck(() =>
      nd.scopeSync(() => {
        const x = nd.array([1, 2, 3]).attachGrad();
        const buffer = x.grad;
        const offered: (NDArray | undefined)[] = [];
        autograd.record(() => nd.sum(double(x, offered))).backward();
        expect(offered[0]).toBe(buffer);
        expect(x.grad).toBe(buffer);
        expect(values(x.grad)).toEqual([2, 2, 2]);
        expect(autograd.isFreshGrad(x)).toBe(true);
      }),
    );
  });

  it('offers nothing when another op also reads the variable, and sums both gradients', async () => {
    await rt.leakCheck(() =>
      nd.scopeSync(() => {
        const x = nd.array([1, 2, 3]).attachGrad();
        const offered: (NDArray | undefined)[] = [];
        autograd.record(() => nd.sum(nd.add(double(x, offered), nd.multiply(x, x)))).backward();
        expect(offered).toEqual([undefined]);
        expect(values(x.grad)).toEqual([4, 6, 8]); // 2 + 2x
      }),
    );
  });

  it("offers nothing for gradReq 'add' or to autograd.grad targets", async () => {
    await rt.leakCheck(() =>
      nd.scopeSync(() => {
        const x = nd.array([1, 2, 3]).attachGrad('add');
        const offered: (NDArray | undefined)[] = [];
        for (let i = 0; i < 2; i++) autograd.record(() => nd.sum(double(x, offered))).backward();
        expect(offered).toEqual([undefined, undefined]);
        expect(values(x.grad)).toEqual([4, 4, 4]);
        const z = nd.array([1, 1]).attachGrad();
        const head = autograd.record(() => nd.sum(double(z, offered)));
        const [g] = autograd.grad(head, [z]);
        expect(offered[2]).toBeUndefined();
        expect(values(g)).toEqual([2, 2]);
      }),
    );
  });
});
