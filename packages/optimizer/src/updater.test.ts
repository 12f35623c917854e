/**
 * The Updater: lazy states and updates equal to the golden trajectories; getStates/setStates round
 * trips (a run split in two by a save and a load must land on the golden trajectory of the
 * uninterrupted run, also for float16 weights with float32 master copies and for Nadam's
 * optimizer-wide counter); the documented byte format; and bad calls and bad files as MXNetErrors
 * that change nothing.
 */
import { type DTypeName, fromHalfBits, MXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, loadMXNetList, type NDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import golden from './__golden__/optimizers.json' with { type: 'json' };
import type { ParamIndex } from './checks.js';
import { createOptimizer } from './registry.js';
import { makeScheduler, type SchedulerSpec, worst } from './test-util/golden.js';
import { getUpdater, type UpdaterFunction } from './updater.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })] });
const { nd } = rt;
afterAll(async () => {
  await rt.dispose();
});

interface Case {
  readonly name: string;
  readonly optimizer: string;
  readonly options: Record<string, unknown>;
  readonly scheduler: SchedulerSpec | null;
  readonly params: { index: number; shape: number[]; dtype: string; weight: number[]; grads: number[][] }[];
  readonly expected: { index: number; weight: number[] }[];
}

function goldenCase(name: string): Case {
  const c = (golden.cases as unknown as Case[]).find((x) => x.name === name);
  if (c === undefined) throw new Error(`no golden case ${name}`);
  return c;
}

function arrayOf(values: readonly number[], shape: number[], dtype: string): NDArray {
  return nd.array(Float32Array.from(values), { shape, dtype: dtype as DTypeName });
}

async function values(a: NDArray): Promise<number[]> {
  const d = await a.data();
  return a.dtype === 'float16' ? Array.from(d as Uint16Array, fromHalfBits) : Array.from(d as Float32Array);
}

function newUpdater(c: Case): UpdaterFunction {
  return getUpdater(createOptimizer(c.optimizer, { ...c.options, lrScheduler: makeScheduler(c.scheduler) }));
}

/** Steps [from, to) of a one-parameter case, checking each against the golden weights. */
async function run(c: Case, up: UpdaterFunction, w: NDArray, from: number, to: number): Promise<void> {
  const p = c.params[0] as Case['params'][number];
  const [atol, rtol] = p.dtype === 'float16' ? [6e-8, 2 ** -10] : [2e-6, 2e-5];
  for (let k = from; k < to; k++) {
    const g = arrayOf(p.grads[k] as number[], p.shape, p.dtype);
    up(p.index, g, w);
    g.dispose();
    const r = worst(await values(w), (c.expected[k] as { weight: number[] }).weight, atol, rtol);
    expect(
      r.ratio,
      `${c.name} step ${k + 1}: element ${r.at} is ${r.got}, expected ${r.want}`,
    ).toBeLessThanOrEqual(1);
  }
}

describe('Updater', () => {
  it.each(['adam', 'lars_no_momentum', 'rmsprop_centered'])(
    'creates states lazily and follows the golden %s trajectory',
    async (name) => {
      await nd.leakCheck(async () => {
        const c = goldenCase(name);
        const p = c.params[0] as Case['params'][number];
        const up = newUpdater(c);
        const w = arrayOf(p.weight, p.shape, p.dtype);
        expect(up.states.size).toBe(0);
        await run(c, up, w, 0, c.expected.length);
        expect([...up.states.keys()]).toEqual([0]);
        up.dispose();
        w.dispose();
      });
    },
  );

  it.each(['adam', 'nadam', 'sgd_momentum_mp', 'adamw_mp', 'ftrl'])(
    'getStates/setStates with dumpOptimizer continues the golden %s trajectory',
    async (name) => {
      await nd.leakCheck(async () => {
        const c = goldenCase(name);
        const p = c.params[0] as Case['params'][number];
        const first = newUpdater(c);
        const w = arrayOf(p.weight, p.shape, p.dtype);
        await run(c, first, w, 0, 3);
        const bytes = await first.getStates({ dumpOptimizer: true });
        first.dispose();
        const second = newUpdater(c);
        second.setStates(bytes, rt);
        expect(second.optimizer.numUpdate).toBe(3);
        await run(c, second, w, 3, c.expected.length);
        second.dispose();
        w.dispose();
      });
    },
  );

  it('without dumpOptimizer the counters are not restored (as in MXNet)', async () => {
    await nd.leakCheck(async () => {
      const c = goldenCase('adam');
      const p = c.params[0] as Case['params'][number];
      const first = newUpdater(c);
      const w = arrayOf(p.weight, p.shape, p.dtype);
      await run(c, first, w, 0, 2);
      const second = newUpdater(c);
      second.setStates(await first.getStates(), rt);
      expect(second.optimizer.numUpdate).toBe(0);
      expect(second.states.size).toBe(1);
      for (const u of [first, second]) u.dispose();
      w.dispose();
    });
  });

  it('keeps string and numeric indices apart, and null states, through the documented format', async () => {
    await nd.leakCheck(async () => {
      const up = getUpdater(createOptimizer('sgd', { momentum: 0.5 }));
      const plain = getUpdater(createOptimizer('sgd'));
      const w = nd.array([1, 2]);
      const v = nd.array([3, 4, 5]);
      nd.scopeSync(() => {
        up(['0', 0], [nd.ones([2]), nd.ones([3])], [w, v]);
        plain('fc_bias', nd.ones([2]), w);
      });
      const bytes = await up.getStates();
      expect(new TextDecoder().decode(bytes.subarray(0, 8))).toBe('MXOPTST1');
      const h = new DataView(bytes.buffer, bytes.byteOffset).getUint32(8, true);
      const header = JSON.parse(new TextDecoder().decode(bytes.subarray(12, 12 + h)));
      expect(header).toEqual({
        format: 'mx-optimizer-states',
        version: 1,
        states: [
          { index: '0', state: { array: 0 } },
          { index: 0, state: { array: 1 } },
        ],
      });
      const list = loadMXNetList(bytes.subarray(12 + h));
      expect(list.arrays.map((a) => a.shape)).toEqual([[2], [3]]);
      expect(Array.from(list.arrays[1]?.data as Float32Array)).toEqual(
        [-0.01, -0.01, -0.01].map(Math.fround),
      );

      const restored = getUpdater(createOptimizer('sgd', { momentum: 0.5 }));
      restored.setStates(bytes, rt);
      expect([...restored.states.keys()]).toEqual(['0', 0]);
      const nulls = getUpdater(createOptimizer('sgd'));
      nulls.setStates(await plain.getStates(), rt);
      expect([...nulls.states.entries()]).toEqual([['fc_bias', null]]);
      for (const u of [up, plain, restored, nulls]) u.dispose();
      w.dispose();
      v.dispose();
    });
  });

  it('a list with one bad entry changes nothing', async () => {
    await nd.leakCheck(async () => {
      const up = getUpdater(createOptimizer('adam', { paramIdx2Name: { 1: 'fc_weight' } }));
      const a = nd.array([1, 2]);
      const b = nd.array([3, 4]);
      const ga = nd.ones([2]);
      const gb = nd.ones([3]);
      expect(() => up([0, 1], [ga, gb], [a, b])).toThrow(
        /parameter 1 \(fc_weight\): grad shape \(3,\) does not match weight shape \(2,\)/,
      );
      expect(up.states.size).toBe(0);
      expect(up.optimizer.numUpdate).toBe(0);
      expect([await values(a), await values(b)]).toEqual([
        [1, 2],
        [3, 4],
      ]);
      expect(() => up([0, 1], [ga], [a, b])).toThrow(/got 2 indices, 1 gradients and 2 weights/);
      for (const x of [a, b, ga, gb]) x.dispose();
      up.dispose();
    });
  });

  it('bad bytes are MXNetErrors and keep the current states', async () => {
    await nd.leakCheck(async () => {
      const up = getUpdater(createOptimizer('adam'));
      const w = nd.array([1, 2]);
      nd.scopeSync(() => up(0, nd.ones([2]), w));
      const good = await up.getStates({ dumpOptimizer: true });
      const state = up.states.get(0 as ParamIndex);
      const h = new DataView(good.buffer, good.byteOffset).getUint32(8, true);
      const withHeader = (text: string) => {
        const head = new TextEncoder().encode(text);
        const out = new Uint8Array(12 + head.length + good.length - 12 - h);
        out.set(good.subarray(0, 8));
        new DataView(out.buffer).setUint32(8, head.length, true);
        out.set(head, 12);
        out.set(good.subarray(12 + h), 12 + head.length);
        return out;
      };
      const badMagic = good.slice();
      badMagic[0] = 0x41;
      const v2 = good.slice();
      v2[7] = 0x32;
      const bad: [Uint8Array, RegExp][] = [
        [good.subarray(0, 5), /shorter than the 12-byte preamble/],
        [badMagic, /bad magic/],
        [v2, /format version 2 is not supported/],
        [good.subarray(0, good.length - 4), /array section is not an NDArray list/],
        [withHeader('{"format":'), /header is not valid JSON/],
        [
          withHeader(
            '{"format":"mx-optimizer-states","version":1,"states":[{"index":0,"state":[{"array":0},{"array":7}]}]}',
          ),
          /refers to array 7, but the file holds 2/,
        ],
        [
          withHeader(
            '{"format":"mx-optimizer-states","version":1,"states":[{"index":0,"state":{"array":0}}]}',
          ),
          /1 array\(s\) belong to no state/,
        ],
        [
          withHeader('{"format":"mx-optimizer-states","version":1,"states":[{"index":1.5,"state":null}]}'),
          /no integer or string index/,
        ],
      ];
      for (const [bytes, message] of bad) {
        expect(() => up.setStates(bytes, rt)).toThrow(MXNetError);
        expect(() => up.setStates(bytes, rt)).toThrow(message);
      }
      const other = getUpdater(createOptimizer('sgd'));
      expect(() => other.setStates(good, rt)).toThrow(/the states were saved by Adam, not SGD/);
      expect(() => getUpdater(createOptimizer('adam')).setStates(good)).toThrow(
        /no runtime to create the state arrays on/,
      );
      expect(up.states.get(0)).toBe(state);
      expect(up.optimizer.numUpdate).toBe(1);
      up.dispose();
      other.dispose();
      w.dispose();
    });
  });

  it('needs an Optimizer', () => {
    expect(() => getUpdater({} as never)).toThrow(/Updater needs an Optimizer/);
  });
});
