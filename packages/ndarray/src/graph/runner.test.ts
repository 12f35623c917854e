/**
 * GraphRunner on cpu-wasm (real kernels) and on the host-test backend (gpu contexts) with small test
 * ops whose kernels record what they are given: sync and async segments, storage shared between
 * entries, node ranges, accumulated and unused outputs, mutated inputs, resources and training
 * mode, failures naming the node, bind-time errors, the shared pool and disposal. Expected values
 * are computed with Math from the inputs; the graphs and plans are built by hand (test-graph.ts),
 * so the runner is tested independently of @mx/graph's passes.
 */
import { gpu, isMXNetError, type Shape } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { entry, GraphNode, IndexedGraph, type NodeEntry } from '@mx/graph';
import { afterAll, describe, expect, it } from 'vitest';
import { createRuntime, type NDArray } from '../index.js';
import { HostTestBackend } from '../test-util/host-backend.js';
import { createGraphRunner, unusedEntries } from './runner.js';
import { inferForward, planFrom } from './test-graph.js';
import { testOps } from './test-ops.js';

const { registry, seenReq } = testOps();
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

/** y = tanh(2x + 1) - x on cpu-wasm, with its index and the entry ids of x and y. */
function chain() {
  const xv = GraphNode.variable('x');
  const x = entry(xv);
  const m = op('_mul_scalar', 'mul', [x], { scalar: '2' });
  const p = op('_plus_scalar', 'plus', [m], { scalar: '1' });
  const t = op('tanh', 'tanh', [p]);
  const y = op('elemwise_sub', 'sub', [t, x]);
  const idx = new IndexedGraph([y]);
  return { idx, x: idx.entryOf(x), y: idx.entryOf(y) };
}
const chainRef = (x: number[]) => x.map((v) => Math.tanh(2 * v + 1) - v);

describe('GraphRunner on cpu-wasm', () => {
  it('runs a chain as one bulk or node by node, with the same values, run after run', async () => {
    await rt.leakCheck(async () => {
      const { idx, x, y } = chain();
      const { shapes, dtypes } = inferForward(idx, { x: [[2, 3], 'float32'] });
      const xs = nd.array([-1, -0.5, 0, 0.25, 1, 2], { shape: [2, 3] });
      const plan = planFrom(idx, shapes, dtypes);
      for (const bulkSize of [15, 1]) {
        const r = createGraphRunner(rt, {
          graph: idx,
          shapes,
          dtypes,
          plan,
          external: new Map([[x, xs]]),
          bulkSize,
        });
        expect(r.segments(0, r.numNodes, { isTrain: true })).toEqual(
          bulkSize === 1 ? [['mul'], ['plus'], ['tanh'], ['sub']] : [['mul', 'plus', 'tanh', 'sub']],
        );
        expect(r.segments()).toEqual([['mul', 'plus', 'tanh', 'sub']]); // inference: one bulk
        r.run(0, r.numNodes, { isTrain: true });
        close(await values(r.array(y)), chainRef([-1, -0.5, 0, 0.25, 1, 2]));
        xs.set([3, 2, 1, 0, -1, -2]);
        r.run();
        close(await values(r.array(y)), chainRef([3, 2, 1, 0, -1, -2]));
        xs.set([-1, -0.5, 0, 0.25, 1, 2]);
        r.dispose();
      }
      xs.dispose();
    });
  });

  it('entries sharing a storage id (ping-pong buffers) and node ranges give the same result', async () => {
    const { idx, x, y } = chain();
    const { shapes, dtypes } = inferForward(idx, { x: [[4], 'float32'] });
    // mul → s0, plus → s1, tanh → s0 (mul's value is dead by then), sub → s2.
    const [eMul, ePlus, eTanh] = [1, 2, 3].map((nid) => idx.entryId(nid));
    const plan = planFrom(idx, shapes, dtypes, {
      [eMul as number]: 0,
      [ePlus as number]: 1,
      [eTanh as number]: 0,
    });
    expect(plan.storageBytes).toEqual([16, 16, 16]);
    const xs = nd.array([0.1, -0.2, 0.3, 2]);
    const before = rt.memory().bytes;
    const r = createGraphRunner(rt, {
      graph: idx,
      shapes,
      dtypes,
      plan,
      external: new Map([[x, xs]]),
      bulkSize: 2,
    });
    expect(rt.memory().bytes - before).toBe(48); // three buffers, nothing per entry
    r.run(0, 2, { isTrain: true });
    r.run(2, r.numNodes, { isTrain: true });
    close(await values(r.array(y)), chainRef([0.1, -0.2, 0.3, 2]));
    r.dispose();
    expect(rt.memory().bytes).toBe(before);
    xs.dispose();
  });

  it('passes training mode and resources to the kernels (Dropout)', async () => {
    const xv = GraphNode.variable('x');
    const d = op('Dropout', 'drop', [entry(xv)], { p: '0.5' });
    const idx = new IndexedGraph([d]);
    const { shapes, dtypes } = inferForward(idx, { x: [[1000], 'float32'] });
    const xs = nd.ones([1000]);
    const r = createGraphRunner(rt, {
      graph: idx,
      shapes,
      dtypes,
      plan: planFrom(idx, shapes, dtypes),
      external: new Map([[idx.entryOf(entry(xv)), xs]]),
    });
    const out = r.array(idx.entryOf(d));
    r.run(0, r.numNodes, { isTrain: false });
    expect(new Set(await values(out))).toEqual(new Set([1]));
    r.run(0, r.numNodes, { isTrain: true });
    const v = await values(out);
    expect(new Set(v)).toEqual(new Set([0, 2]));
    const kept = v.filter((a) => a === 2).length;
    expect(kept).toBeGreaterThan(400);
    expect(kept).toBeLessThan(600);
    r.dispose();
    xs.dispose();
  });

  it('releases everything on dispose and is not disposed by an enclosing scope', async () => {
    const { idx, x, y } = chain();
    const { shapes, dtypes } = inferForward(idx, { x: [[3], 'float32'] });
    const xs = nd.array([1, 2, 3]);
    const base = rt.memory();
    await rt.leakCheck(async () => {
      const r = await nd.scope(async () =>
        createGraphRunner(rt, {
          graph: idx,
          shapes,
          dtypes,
          plan: planFrom(idx, shapes, dtypes),
          external: new Map([[x, xs]]),
        }),
      );
      r.run();
      close(await values(r.array(y)), chainRef([1, 2, 3]));
      r.dispose();
      expect(r.isDisposed).toBe(true);
      expect(() => r.run()).toThrow(/disposed/);
    });
    expect(rt.memory().arrays).toBe(base.arrays);
    expect(rt.memory().bytes).toBe(base.bytes);
    expect(xs.isDisposed).toBe(false);
    xs.dispose();
  });

  it('reuses the buffers of a shared runner where they are big enough', async () => {
    const { idx, x, y } = chain();
    const big = inferForward(idx, { x: [[64], 'float32'] });
    const small = inferForward(idx, { x: [[16], 'float32'] });
    const xb = nd.ones([64]);
    const xsm = nd.array(Array.from({ length: 16 }, (_, i) => i / 8 - 1));
    const r1 = createGraphRunner(rt, {
      ...big,
      graph: idx,
      plan: planFrom(idx, big.shapes, big.dtypes),
      external: new Map([[x, xb]]),
    });
    const before = rt.memory().bytes;
    const r2 = createGraphRunner(rt, {
      ...small,
      graph: idx,
      plan: planFrom(idx, small.shapes, small.dtypes),
      external: new Map([[x, xsm]]),
      shared: r1,
    });
    expect(rt.memory().bytes).toBe(before);
    r2.run();
    close(await values(r2.array(y)), chainRef(Array.from({ length: 16 }, (_, i) => i / 8 - 1)));
    r1.dispose();
    r2.dispose();
    xb.dispose();
    xsm.dispose();
  });
});

describe('GraphRunner on an asynchronous backend (host-test, gpu(0))', () => {
  const ext = (idx: IndexedGraph, pairs: [NodeEntry, NDArray][]) =>
    new Map(pairs.map(([e, a]) => [idx.entryOf(e), a]));

  it('splits sync and async kernels into separate segments and runs async steps in order', async () => {
    const x = entry(GraphNode.variable('x'));
    const a = op('test_affine', 'a', [x], { k: '2' });
    const b = op('test_async_affine', 'b', [a], { b: '1' });
    const c = op('test_async_affine', 'c', [b], { k: '3', inline: 'true' });
    const d = op('test_async_affine', 'd', [c], { k: '-1' });
    const e = op('test_affine', 'e', [d], { b: '0.5' });
    const idx = new IndexedGraph([e]);
    const { shapes, dtypes } = inferForward(idx, { x: [[3], 'float32'] });
    const xs = nd.array([1, 2, 3], { ctx: G });
    const r = createGraphRunner(rt, {
      graph: idx,
      shapes,
      dtypes,
      plan: planFrom(idx, shapes, dtypes),
      ctx: G,
      external: ext(idx, [[x, xs]]),
    });
    expect(r.segments(0, r.numNodes, { isTrain: true })).toEqual([['a'], ['b', 'c', 'd'], ['e']]);
    r.run(0, r.numNodes, { isTrain: true });
    r.run(0, r.numNodes, { isTrain: true }); // a second run queued behind the first
    close(
      await values(r.array(idx.entryOf(e))),
      [1, 2, 3].map((v) => -3 * (2 * v + 1) + 0.5),
    );
    r.dispose();
    xs.dispose();
  });

  it('gives req null to outputs nobody reads and req add to accumulated external outputs', async () => {
    const x = entry(GraphNode.variable('x'));
    const sn = GraphNode.create(registry.get('test_split2'), 's', {}, [x]);
    const y = op('test_affine', 'y', [entry(sn, 0)], { k: '2' });
    const idx = new IndexedGraph([y]);
    const { shapes, dtypes } = inferForward(idx, { x: [[2], 'float32'] });
    expect([...unusedEntries(idx)]).toEqual([idx.entryOf(entry(sn, 1))]);
    const xs = nd.array([1, -2], { ctx: G });
    const acc = nd.array([10, 10], { ctx: G });
    const yid = idx.entryOf(y);
    const r = createGraphRunner(rt, {
      graph: idx,
      shapes,
      dtypes,
      plan: planFrom(idx, shapes, dtypes, {}, new Set([yid])),
      ctx: G,
      external: new Map([...ext(idx, [[x, xs]]), [yid, acc]]),
      addTo: new Set([yid]),
    });
    r.run();
    r.run();
    expect(await values(acc)).toEqual([14, 2]);
    expect(seenReq.get('test_split2')).toEqual([1, 0]);
    expect(seenReq.get('test_affine')).toEqual([3]);
    r.dispose();
    xs.dispose();
    acc.dispose();
  });

  it('writes mutated inputs (aux states) in place, run after run', async () => {
    const x = entry(GraphNode.variable('x'));
    const s = entry(GraphNode.variable('state'));
    const y = op('test_accumulate', 'acc', [x, s]);
    const idx = new IndexedGraph([y]);
    expect([...idx.mutableInputNodes]).toEqual([idx.nodeId(s.node)]);
    const { shapes, dtypes } = inferForward(idx, { x: [[2], 'float32'], state: [[2], 'float32'] });
    const xs = nd.array([1, 2], { ctx: G });
    const st = nd.array([0, 0], { ctx: G });
    const r = createGraphRunner(rt, {
      graph: idx,
      shapes,
      dtypes,
      plan: planFrom(idx, shapes, dtypes),
      ctx: G,
      external: ext(idx, [
        [x, xs],
        [s, st],
      ]),
    });
    for (let i = 0; i < 3; i++) r.run(0, r.numNodes, { isTrain: true });
    expect(await values(st)).toEqual([3, 6]);
    expect(await values(r.array(idx.entryOf(y)))).toEqual([3, 6]);
    r.dispose();
    xs.dispose();
    st.dispose();
  });

  it('a failing kernel fails what its segment writes, naming the node; a later good run recovers', async () => {
    const x = entry(GraphNode.variable('x'));
    const a = op('test_affine', 'pre', [x]);
    const f = op('test_fail_negative', 'checker', [a]);
    const y = op('test_affine', 'post', [f], { k: '10' });
    const idx = new IndexedGraph([y]);
    const { shapes, dtypes } = inferForward(idx, { x: [[2], 'float32'] });
    const xs = nd.array([1, -1], { ctx: G });
    const r = createGraphRunner(rt, {
      graph: idx,
      shapes,
      dtypes,
      plan: planFrom(idx, shapes, dtypes),
      ctx: G,
      external: ext(idx, [[x, xs]]),
    });
    const out = r.array(idx.entryOf(y));
    r.run();
    const err = await out.data().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isMXNetError(err)).toBe(true);
    expect(String((err as Error).message)).toMatch(/node checker \(test_fail_negative\): negative input/);
    xs.set([1, 2]);
    r.run();
    expect(await values(out)).toEqual([10, 20]);
    r.dispose();
    xs.dispose();
  });

  it('refuses bad bindings before allocating anything', () => {
    const x = entry(GraphNode.variable('x'));
    const y = op('test_float_only', 'only_f32', [x]);
    const idx = new IndexedGraph([y]);
    const { shapes, dtypes } = inferForward(idx, { x: [[2], 'float32'] });
    const plan = planFrom(idx, shapes, dtypes);
    const before = rt.memory();
    const wrong = nd.array([0, 0, 0], { ctx: G });
    expect(() =>
      createGraphRunner(rt, { graph: idx, shapes, dtypes, plan, ctx: G, external: ext(idx, [[x, wrong]]) }),
    ).toThrow(/variable x: expected float32 \(2,\) on gpu\(0\), given float32 \(3,\) on gpu\(0\)/);
    expect(() => createGraphRunner(rt, { graph: idx, shapes, dtypes, plan, ctx: G })).toThrow(
      /variable x: is external but no array/,
    );
    const ints = inferForward(idx, { x: [[2], 'int32'] });
    const xi = nd.array([0, 0], { ctx: G, dtype: 'int32' });
    expect(() =>
      createGraphRunner(rt, {
        graph: idx,
        ...ints,
        plan: planFrom(idx, ints.shapes, ints.dtypes),
        ctx: G,
        external: ext(idx, [[x, xi]]),
      }),
    ).toThrow(/node only_f32 \(test_float_only\): dtype int32 is not supported/);
    expect(() =>
      createGraphRunner(rt, {
        graph: idx,
        shapes: [shapes[0] as Shape, undefined],
        dtypes,
        plan,
        ctx: G,
        external: ext(idx, [[x, wrong]]),
      }),
    ).toThrow(/only_f32 \(test_float_only\) output 0: shape unknown/);
    expect(() => createGraphRunner(rt, { graph: idx, shapes: [], dtypes, plan, ctx: G })).toThrow(
      /shapes has 0 entries; the graph has 2/,
    );
    const xs = nd.array([0, 0], { ctx: G });
    const r = createGraphRunner(rt, {
      graph: idx,
      shapes,
      dtypes,
      plan,
      ctx: G,
      external: ext(idx, [[x, xs]]),
    });
    expect(() => r.run(1, 5)).toThrow(/node range \[1, 5\) is not inside/);
    r.dispose();
    expect(rt.memory().arrays).toBe(before.arrays + 3); // wrong, xi, xs: the failed binds left nothing
    for (const a of [wrong, xi, xs]) a.dispose();
  });
});
