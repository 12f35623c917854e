/**
 * GraphRunner.rebind: new arrays for external entries (inputs, outputs, accumulated outputs,
 * mutated inputs, partial windows) give the values a freshly created runner gives, without
 * recompiling; ops pushed before a rebind still run on the arrays they were pushed with (an
 * asynchronous kernel holds the first run back while the second is bound and pushed); a bad
 * rebind throws an MXNetError and changes nothing; nothing leaks. Expected values are computed
 * with Math from the inputs.
 */
import { gpu, isMXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { entry, GraphNode, IndexedGraph, type NodeEntry } from '@mx/graph';
import { afterAll, describe, expect, it } from 'vitest';
import { createRuntime, type NDArray } from '../index.js';
import { HostTestBackend } from '../test-util/host-backend.js';
import { createGraphRunner, type GraphRunnerOptions } from './runner.js';
import { inferForward, planFrom } from './test-graph.js';
import { testOps } from './test-ops.js';

const { registry } = testOps();
const rt = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 }), new HostTestBackend()], registry });
const { nd } = rt;
const G = gpu(0);
afterAll(() => nd.waitall());

const op = (name: string, node: string, inputs: NodeEntry[], attrs: Record<string, string> = {}) =>
  entry(GraphNode.create(registry.get(name), node, attrs, inputs));
const values = async (a: NDArray): Promise<number[]> => Array.from((await a.data()) as Float32Array);
const close = (got: number[], want: number[], tol = 1e-6) => {
  expect(got.length).toBe(want.length);
  got.forEach((g, i) => {
    expect(Math.abs(g - (want[i] as number))).toBeLessThanOrEqual(tol * (1 + Math.abs(want[i] as number)));
  });
};
const thrown = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    expect(isMXNetError(e)).toBe(true);
    return (e as Error).message;
  }
  throw new Error('expected an MXNetError');
};

/** y = tanh(2x + 1) - x on cpu-wasm, y bound to an external array (as a gradient output is). */
function chain(shape: number[]) {
  const xv = GraphNode.variable('x');
  const x = entry(xv);
  const m = op('_mul_scalar', 'mul', [x], { scalar: '2' });
  const p = op('_plus_scalar', 'plus', [m], { scalar: '1' });
  const t = op('tanh', 'tanh', [p]);
  const y = op('elemwise_sub', 'sub', [t, x]);
  const idx = new IndexedGraph([y]);
  const { shapes, dtypes } = inferForward(idx, { x: [shape, 'float32'] });
  const ids = { x: idx.entryOf(x), y: idx.entryOf(y), mul: idx.entryOf(m) };
  const plan = planFrom(idx, shapes, dtypes, {}, new Set([ids.y]));
  const options = (xa: NDArray, ya: NDArray): GraphRunnerOptions => ({
    graph: idx,
    shapes,
    dtypes,
    plan,
    external: new Map([
      [ids.x, xa],
      [ids.y, ya],
    ]),
  });
  return { ids, options };
}
const chainRef = (x: number[]) => x.map((v) => Math.tanh(2 * v + 1) - v);

describe('GraphRunner.rebind on cpu-wasm', () => {
  it('gives the values of a fresh runner; earlier outputs keep theirs', async () => {
    await rt.leakCheck(async () => {
      const { ids, options } = chain([2, 3]);
      const v1 = [-1, -0.5, 0, 0.25, 1, 2];
      const v2 = [3, 2, 1, 0, -1, -2];
      const [x1, x2] = [nd.array(v1, { shape: [2, 3] }), nd.array(v2, { shape: [2, 3] })];
      const [o1, o2, o3] = [nd.zeros([2, 3]), nd.zeros([2, 3]), nd.zeros([2, 3])];
      const r = createGraphRunner(rt, { ...options(x1, o1), bulkSize: 2 });
      const before = r.segments(0, r.numNodes, { isTrain: true });
      r.run(0, r.numNodes, { isTrain: true });
      const memory = rt.memory();
      r.rebind(
        new Map([
          [ids.x, x2],
          [ids.y, o2],
        ]),
      );
      expect(rt.memory()).toMatchObject({ arrays: memory.arrays, bytes: memory.bytes }); // nothing allocated
      expect(r.array(ids.x)).toBe(x2);
      expect(r.array(ids.y)).toBe(o2);
      expect(r.segments(0, r.numNodes, { isTrain: true })).toEqual(before);
      r.run(0, r.numNodes, { isTrain: true });
      const fresh = createGraphRunner(rt, { ...options(x2, o3), bulkSize: 2 });
      fresh.run(0, r.numNodes, { isTrain: true });
      expect(await values(o2)).toEqual(await values(o3));
      close(await values(o2), chainRef(v2));
      close(await values(o1), chainRef(v1));
      // Back to the first input, output bound in place (a view of the same window), inference mode.
      r.rebind(new Map([[ids.x, x1]]));
      r.run();
      close(await values(o2), chainRef(v1));
      dispose(r, fresh, x1, x2, o1, o2, o3);
    });
  });

  it('writes a partial window of a larger array, leaving the rest as it was', async () => {
    await rt.leakCheck(async () => {
      const { ids, options } = chain([2]);
      const [x1, big] = [nd.array([0.5, -1]), nd.array([7, 7, 7, 7])];
      const o1 = nd.zeros([2]);
      const r = createGraphRunner(rt, options(x1, o1));
      const window = big.slice(1, 3);
      r.rebind(new Map([[ids.y, window]]));
      r.run();
      close(await values(big), [7, ...chainRef([0.5, -1]), 7]);
      expect(await values(o1)).toEqual([0, 0]);
      dispose(r, x1, big, o1, window);
    });
  });

  it('refuses bad arrays and entries that are not external, changing nothing', async () => {
    await rt.leakCheck(async () => {
      const { ids, options } = chain([2, 3]);
      const v1 = [1, 2, 3, 4, 5, 6];
      const x1 = nd.array(v1, { shape: [2, 3] });
      const o1 = nd.zeros([2, 3]);
      const r = createGraphRunner(rt, options(x1, o1));
      const good = nd.zeros([2, 3]);
      const out = nd.array([9, 9, 9, 9, 9, 9], { shape: [2, 3] });
      const wrongShape = nd.zeros([3, 2]);
      const wrongType = nd.zeros([2, 3], { dtype: 'float64' });
      const onGpu = nd.array([0, 0, 0, 0, 0, 0], { shape: [2, 3], ctx: G });
      const gone = nd.zeros([2, 3]);
      gone.dispose();
      const cases: [Map<number, NDArray>, RegExp][] = [
        [
          new Map([[ids.x, wrongShape]]),
          /variable x: expected float32 \(2, 3\) on cpu\(0\), given float32 \(3, 2\)/,
        ],
        [new Map([[ids.x, wrongType]]), /variable x: expected float32 .* given float64 \(2, 3\)/],
        [new Map([[ids.x, onGpu]]), /variable x: expected float32 \(2, 3\) on cpu\(0\), .* on gpu\(0\)/],
        [new Map([[ids.x, gone]]), /disposed/],
        [new Map([[ids.mul, good]]), /node mul \(_mul_scalar\) output 0: is not bound to an external array/],
        [new Map([[99, good]]), /entry 99: is not bound to an external array/],
        // One good array before a bad one: neither is bound.
        [
          new Map([
            [ids.y, out],
            [ids.x, wrongShape],
          ]),
          /given float32 \(3, 2\)/,
        ],
      ];
      for (const [arrays, want] of cases) expect(thrown(() => r.rebind(arrays))).toMatch(want);
      expect(r.array(ids.x)).toBe(x1);
      expect(r.array(ids.y)).toBe(o1);
      r.run();
      close(await values(o1), chainRef(v1));
      expect(await values(out)).toEqual([9, 9, 9, 9, 9, 9]);
      r.dispose();
      expect(thrown(() => r.rebind(new Map([[ids.x, good]])))).toMatch(/disposed/);
      dispose(x1, o1, good, out, wrongShape, wrongType, onGpu);
    });
  });
});

describe('GraphRunner.rebind on an asynchronous backend (host-test, gpu(0))', () => {
  it('leaves ops pushed before the rebind on the arrays they were pushed with', async () => {
    await rt.leakCheck(async () => {
      // a completes a macrotask later, so b of the first run is still queued when we rebind.
      const x = entry(GraphNode.variable('x'));
      const a = op('test_async_affine', 'a', [x], { k: '2', b: '1' });
      const y = op('test_affine', 'b', [a], { k: '3' });
      const idx = new IndexedGraph([y]);
      const { shapes, dtypes } = inferForward(idx, { x: [[3], 'float32'] });
      const [ex, ey] = [idx.entryOf(x), idx.entryOf(y)];
      const [x1, x2] = [nd.array([1, 2, 3], { ctx: G }), nd.array([-1, 0, 5], { ctx: G })];
      const [o1, o2] = [nd.array([0, 0, 0], { ctx: G }), nd.array([0, 0, 0], { ctx: G })];
      const r = createGraphRunner(rt, {
        graph: idx,
        shapes,
        dtypes,
        plan: planFrom(idx, shapes, dtypes, {}, new Set([ey])),
        ctx: G,
        external: new Map([
          [ex, x1],
          [ey, o1],
        ]),
      });
      expect(r.segments()).toEqual([['a'], ['b']]);
      r.run();
      r.rebind(
        new Map([
          [ex, x2],
          [ey, o2],
        ]),
      );
      x1.dispose(); // the caller lets go: the pushed ops keep its memory until they ran
      r.run();
      expect(await values(o1)).toEqual([9, 15, 21]);
      expect(await values(o2)).toEqual([-3, 3, 33]);
      dispose(r, x2, o1, o2);
    });
  });

  it('moves accumulated outputs and mutated inputs (aux states) to the new arrays', async () => {
    await rt.leakCheck(async () => {
      const x = entry(GraphNode.variable('x'));
      const s = entry(GraphNode.variable('state'));
      const acc = op('test_accumulate', 'acc', [x, s]);
      const y = op('test_affine', 'y', [acc], { k: '2' });
      const idx = new IndexedGraph([y]);
      const { shapes, dtypes } = inferForward(idx, { x: [[2], 'float32'], state: [[2], 'float32'] });
      const [ex, es, ey] = [idx.entryOf(x), idx.entryOf(s), idx.entryOf(y)];
      const xs = nd.array([1, 2], { ctx: G });
      const [st1, st2] = [nd.array([0, 0], { ctx: G }), nd.array([10, 20], { ctx: G })];
      const [g1, g2] = [nd.array([100, 100], { ctx: G }), nd.array([0, 1], { ctx: G })];
      const r = createGraphRunner(rt, {
        graph: idx,
        shapes,
        dtypes,
        plan: planFrom(idx, shapes, dtypes, {}, new Set([ey])),
        ctx: G,
        external: new Map([
          [ex, xs],
          [es, st1],
          [ey, g1],
        ]),
        addTo: new Set([ey]),
      });
      r.run(); // st1 = x, g1 += 2 st1
      r.run(); // st1 = 2x, g1 += 2 st1
      r.rebind(
        new Map([
          [es, st2],
          [ey, g2],
        ]),
      );
      r.run(); // st2 += x, g2 += 2 st2
      expect(await values(st1)).toEqual([2, 4]);
      expect(await values(g1)).toEqual([106, 112]);
      expect(await values(st2)).toEqual([11, 22]);
      expect(await values(g2)).toEqual([22, 45]);
      dispose(r, xs, st1, st2, g1, g2);
    });
  });
});

/** Dispose runners and arrays. */
function dispose(...xs: { dispose(): void }[]): void {
  for (const x of xs) x.dispose();
}
