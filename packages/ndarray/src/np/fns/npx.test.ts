/**
 * `npx` against NumPy/PyTorch (tools/golden/np/npx.py): each neural-network function with
 * camelCase options reaching MXNet's parameters, np outputs; the switches; save/savez/load round
 * trips through NumPy's formats giving np arrays.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DTypeName } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { afterAll, describe, expect, it } from 'vitest';
import { createRuntime, type NDArray } from '../../index.js';
import golden from '../__golden__/npx.json';
import { ndarray } from '../array.js';
import { createNp } from '../namespace.js';
import { opParams } from './npx.js';

interface Enc {
  readonly shape: number[];
  readonly dtype: string;
  readonly data: (number | '-inf')[];
}

const rt = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })], seed: 0 });
const { np, npx } = createNp(rt);
const dir = mkdtempSync(join(tmpdir(), 'mx-npx-'));
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await rt.dispose();
});

const make = (e: Enc): ndarray => {
  const a = rt.nd.array(e.data.map(Number), { dtype: e.dtype as DTypeName, shape: e.shape });
  const b = a.asNpArray();
  a.dispose();
  return b;
};

describe('npx neural-network functions vs NumPy/PyTorch', () => {
  it('camelCase options become MXNet parameter names', () => {
    expect(opParams({ numHidden: 4, noBias: true, actType: 'relu', k: 2, skip: undefined })).toEqual({
      num_hidden: 4,
      no_bias: true,
      act_type: 'relu',
      k: 2,
    });
  });

  for (const c of golden.cases as unknown as { fn: string; args: Enc[]; options: object; expect: Enc[] }[]) {
    it(`${c.fn} ${JSON.stringify(c.options)}`, async () => {
      await rt.nd.leakCheck(async () => {
        const args = c.args.map(make);
        const fn = (npx as unknown as Record<string, (...a: unknown[]) => ndarray | ndarray[]>)[c.fn];
        if (fn === undefined) throw new Error(`npx.${c.fn} is missing`);
        // Functions with an optional bias take null in its place when there is none.
        const biasFn = ['fullyConnected', 'convolution', 'deconvolution'].includes(c.fn);
        const call = biasFn && args.length === 2 ? [...args, null, c.options] : [...args, c.options];
        const out = fn(...call);
        const outs = Array.isArray(out) ? out : [out];
        expect(outs).toHaveLength(c.expect.length);
        for (const [i, want] of c.expect.entries()) {
          const got = outs[i] as ndarray;
          expect(got).toBeInstanceOf(ndarray);
          expect([...got.shape]).toEqual(want.shape);
          const v = Array.from((await got.data()) as Float32Array);
          want.data.forEach((w, j) => {
            if (w === '-inf') expect(v[j]).toBe(Number.NEGATIVE_INFINITY);
            else expect(Math.abs((v[j] as number) - w)).toBeLessThanOrEqual(1e-5 * Math.max(1, Math.abs(w)));
          });
        }
        for (const a of [...args, ...outs]) a.dispose();
      });
    });
  }
});

describe('npx.reshape (MXNet 2.0 codes) and npx.arangeLike', () => {
  // Shapes from MXNet's test_npx_reshape (the op-level cases in tools/golden/ops/np_shape.py hold all 17).
  const CASES: [number[], number[], boolean, number[]][] = [
    [[2, 3, 5, 4], [-1, -2, -2], false, [8, 3, 5]],
    [[1, 1, 4, 1], [-3, -3, -2, -2], false, [4, 1]],
    [[64, 1, 2, 3], [-6, 16, -1, -4], false, [16, 4, 1, 2, 3]],
    [[8, 5, 4, 6], [-4, -1, 3, -6], true, [8, 5, 4, 2, 3]],
  ];
  for (const [shape, codes, reverse, want] of CASES) {
    it(`${JSON.stringify(shape)} with ${JSON.stringify(codes)}${reverse ? ' reversed' : ''} is a view of shape ${JSON.stringify(want)}`, async () => {
      await rt.nd.leakCheck(async () => {
        const flat = np.arange(shape.reduce((p, d) => p * d, 1));
        const a = flat.reshape(shape);
        const b = npx.reshape(a, codes, { reverse });
        expect(b).toBeInstanceOf(ndarray);
        expect([...b.shape]).toEqual(want);
        expect(b.chunk).toBe(a.chunk); // shares storage, as np.reshape does
        expect(Array.from((await b.data()) as Float32Array)).toEqual(
          Array.from((await a.data()) as Float32Array),
        );
        for (const x of [flat, a, b]) x.dispose();
      });
    });
  }

  it('a bad code names the shapes and changes nothing', async () => {
    const a = np.zeros([4, 6]);
    expect(() => npx.reshape(a, [-3, -2])).toThrow(
      /_npx_reshape.*-3 index should only be used to skip dimension size 1/s,
    );
    expect(() => npx.reshape(a, [5, -1])).toThrow('Cannot reshape array of shape (4,6) into shape (5,-1)');
    expect([...a.shape]).toEqual([4, 6]);
    a.dispose();
  });

  it('gradients flow back through the view', async () => {
    const a = np.arange(6).astype('float32');
    a.attachGrad();
    const y = rt.autograd.record(() =>
      npx
        .reshape(a, [-6, 2, -1])
        .mul(
          np.array([
            [1, 2, 3],
            [4, 5, 6],
          ]),
        )
        .sum(),
    );
    await y.backward();
    expect(Array.from((await a.grad?.data()) as Float32Array)).toEqual([1, 2, 3, 4, 5, 6]);
    a.dispose();
    y.dispose();
  });

  it('deferred compute records _npx_reshape with the codes, and _npx_arange_like', async () => {
    const x = np.ones([2, 3, 4]);
    const [r, s] = rt.dc.context(() => {
      rt.dc.setVariable(x, 'x');
      const v = npx.reshape(x, [-2, -5]);
      return [v, npx.arangeLike(v, { axis: 1 })];
    });
    expect([...r.shape]).toEqual([2, 12]);
    expect(Array.from((await s.data()) as Float32Array)).toEqual([...Array(12).keys()]);
    const nodes = rt.dc.getSymbol([r, s]).indexed.nodes.map((n) => n.node);
    const reshape = nodes.find((n) => n.op?.name === '_npx_reshape');
    expect(reshape?.attrs.newshape).toBe('(-2, -5)');
    expect(nodes.some((n) => n.op?.name === '_contrib_arange_like')).toBe(true);
    for (const a of [x, r, s]) a.dispose();
  });
});

describe('npx switches and files', () => {
  it('save / savez / load use NumPy formats and give np arrays', async () => {
    const a = np.array([
      [1, 2],
      [3, 4],
    ]);
    const b = np.ones([3]);
    await npx.save(join(dir, 'a.npy'), a);
    const back = (await npx.load(join(dir, 'a.npy'))) as ndarray;
    expect(back).toBeInstanceOf(ndarray);
    expect(await back.array()).toEqual([
      [1, 2],
      [3, 4],
    ]);
    await npx.savez(join(dir, 'ab.npz'), a, { b });
    const both = (await npx.load(join(dir, 'ab.npz'))) as Record<string, NDArray>;
    expect(Object.keys(both).sort()).toEqual(['arr_0', 'b']);
    expect(both.b).toBeInstanceOf(ndarray);
    expect(await both.b?.array()).toEqual([1, 1, 1]);
    await expect(npx.savez(join(dir, 'x.npz'), a, { arr_0: b })).rejects.toThrow('Naming conflict');
    for (const x of [a, b, back, ...Object.values(both)]) x.dispose();
  });
});
