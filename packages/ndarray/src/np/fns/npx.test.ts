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
  readonly data: number[];
}

const rt = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })], seed: 0 });
const { np, npx } = createNp(rt);
const dir = mkdtempSync(join(tmpdir(), 'mx-npx-'));
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await rt.dispose();
});

const make = (e: Enc): ndarray => {
  const a = rt.nd.array(e.data, { dtype: e.dtype as DTypeName, shape: e.shape });
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
            expect(Math.abs((v[j] as number) - w)).toBeLessThanOrEqual(1e-5 * Math.max(1, Math.abs(w)));
          });
        }
        for (const a of [...args, ...outs]) a.dispose();
      });
    });
  }
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
