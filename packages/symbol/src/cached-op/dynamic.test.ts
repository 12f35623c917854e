/**
 * A CachedOp whose graph holds a dynamic-shape node (`_npi_boolean_mask`): it runs op by op
 * (inline.ts) whatever the flags, so each call finds its own shapes — masks with different counts
 * through one CachedOp give the eager values, and gradients flow through the ops recorded one by one.
 */
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import { CachedOp } from './index.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })], seed: 0 });
afterAll(() => rt.dispose());

const values = (a: NDArray) => Array.from(a.dataSync() as ArrayLike<number>, Number);

/** f(x, m) = boolean_mask(x, m) * 2 (rows of x where m is true, doubled). */
function trace(): CachedOp {
  const x = rt.nd.zeros([3, 2]);
  const m = rt.nd.array([1, 0, 1], { dtype: 'bool' });
  rt.dc.setVariable([x, m], ['x', 'm']);
  const y = rt.dc.context(() => {
    const masked = rt.invoke('_npi_boolean_mask', [x, m])[0] as NDArray;
    const out = rt.invoke('_mul_scalar', [masked], { scalar: 2 })[0] as NDArray;
    masked.dispose();
    return out;
  });
  const graph = rt.dc.getSymbol(y);
  for (const a of [x, m, y]) a.dispose();
  return new CachedOp(rt, graph, { staticAlloc: true, staticShape: true });
}

describe('CachedOp with a dynamic-shape node', () => {
  it('runs op by op, each call with its own count, as eager', () => {
    const op = trace();
    expect(op.hasDynamicShape).toBe(true);
    expect(op.isInlined).toBe(true);
    const x = rt.nd.array([1, 2, 3, 4, 5, 6], { shape: [3, 2] });
    for (const mask of [
      [1, 0, 1],
      [0, 0, 1],
      [1, 1, 1],
      [0, 0, 0],
    ]) {
      const m = rt.nd.array(mask, { dtype: 'bool' });
      const [y] = op.call(...(op.inputNames[0] === 'x' ? [x, m] : [m, x])) as [NDArray];
      const rows = mask.flatMap((k, i) => (k ? [2 * (2 * i + 1), 2 * (2 * i + 2)] : []));
      expect([...y.shape]).toEqual([rows.length / 2, 2]);
      expect(values(y)).toEqual(rows);
      y.dispose();
      m.dispose();
    }
    x.dispose();
    op.dispose();
  });

  it('records its ops on the tape: the gradient reaches the masked rows', () => {
    const op = trace();
    const x = rt.nd.array([1, 2, 3, 4, 5, 6], { shape: [3, 2] });
    const m = rt.nd.array([0, 1, 1], { dtype: 'bool' });
    x.attachGrad();
    const y = rt.autograd.record(
      () => op.call(...(op.inputNames[0] === 'x' ? [x, m] : [m, x]))[0] as NDArray,
    );
    y.backward();
    expect(values(x.grad as NDArray)).toEqual([0, 0, 2, 2, 2, 2]);
    for (const a of [x, m, y]) a.dispose();
    op.dispose();
  });
});
