/**
 * Structure tests of the Gradient pass: which nodes it adds, how they are named and wired, and
 * where it refuses. Gradient *values* are checked by the executor's tests against PyTorch; here
 * every expectation follows from MXNet's gradient.cc / AggregateGradient rules.
 */
import { MXNetError } from '@mx/base';
import { createOpRegistry, type OpRegistry } from '@mx/ops';
import { describe, expect, it } from 'vitest';
import { dfsPostOrder, IndexedGraph } from '../indexed.js';
import { entry, GraphNode, type NodeEntry } from '../node.js';
import { aggregateGradient, gradient } from './gradient.js';

const reg = createOpRegistry();
const v = (name: string): NodeEntry => entry(GraphNode.variable(name));
const op = (
  name: string,
  nodeName: string,
  inputs: NodeEntry[],
  params?: Record<string, unknown>,
  r: OpRegistry = reg,
): GraphNode => GraphNode.fromParams(r.get(name), nodeName, params, inputs);
const op1 = (name: string, nodeName: string, inputs: NodeEntry[], params?: Record<string, unknown>) =>
  entry(op(name, nodeName, inputs, params));

/** Every node reachable from the entries (inputs and control deps). */
function nodesOf(es: readonly NodeEntry[]): GraphNode[] {
  const out: GraphNode[] = [];
  dfsPostOrder(
    es.map((e) => e.node),
    (n) => out.push(n),
  );
  return out;
}

/** `data + data + ...` with `n` uses of data (n - 1 elemwise_add nodes). */
function repeatedSum(n: number): { data: NodeEntry; y: NodeEntry } {
  const data = v('data');
  let y = op1('elemwise_add', 'add0', [data, data]);
  for (let i = 1; i < n - 1; i++) y = op1('elemwise_add', `add${i}`, [y, data]);
  return { data, y };
}

/** The leaves of a `_grad_add` chain ending in `sum_grad_final`. */
function chainParts(g: NodeEntry): NodeEntry[] {
  expect(g.node.name).toBe('sum_grad_final');
  expect(g.node.op?.name).toBe('_copy'); // MXNet's `identity` is an alias of _copy
  const parts: NodeEntry[] = [];
  let cur = g.node.inputs[0] as NodeEntry;
  while (cur.node.op?.name === '_grad_add') {
    parts.unshift(cur.node.inputs[1] as NodeEntry);
    cur = cur.node.inputs[0] as NodeEntry;
  }
  parts.unshift(cur);
  return parts;
}

describe('gradient: aggregation (MXNet AggregateGradient)', () => {
  it('sums the 10 parts of data + data + ... (10 uses) with a _grad_add chain ending in identity', () => {
    const { data, y } = repeatedSum(10);
    const head = v('head_grad');
    const [g] = gradient({ registry: reg, ys: [y], yGrads: [head], xs: [data] });
    const parts = chainParts(g as NodeEntry);
    expect(parts).toHaveLength(10);
    // Every part is a distinct backward node of one of the 9 adds.
    expect(new Set(parts.map((p) => p.node)).size).toBe(10);
    for (const p of parts) expect(p.node.op?.name).toMatch(/^_backward_elemwise_add_[01]$/);
    const chain = nodesOf([g as NodeEntry]).filter((n) => n.op?.name === '_grad_add');
    expect(chain.map((n) => n.name).sort()).toEqual(
      Array.from({ length: 9 }, (_, i) => `sum_grad_${i + 1}`).sort(),
    );
    // Each part after the first waits for the running sum (control dependency), and the result
    // is still a DAG (IndexedGraph throws on a cycle).
    const sumNode = (i: number): GraphNode =>
      i === 0 ? (parts[0] as NodeEntry).node : (chain.find((n) => n.name === `sum_grad_${i}`) as GraphNode);
    for (let i = 1; i < parts.length; i++) {
      const deps = (parts[i] as NodeEntry).node.controlDeps;
      // [forward node (backward ops), running sum]
      expect(deps).toHaveLength(2);
      expect(deps[1]).toBe(sumNode(i - 1));
    }
    expect(() => new IndexedGraph([g as NodeEntry])).not.toThrow();
  });

  it('uses one add_n (ElementWiseSum) node below the cap and the chain at the cap', () => {
    for (const [uses, chain] of [
      [7, false],
      [8, true],
    ] as const) {
      const { data, y } = repeatedSum(uses);
      const [g] = gradient({ registry: reg, ys: [y], yGrads: [v('h')], xs: [data] });
      if (chain) {
        expect(chainParts(g as NodeEntry)).toHaveLength(uses);
      } else {
        expect(g?.node.op?.name).toBe('add_n');
        expect(g?.node.name).toBe('sum_grad');
        expect(g?.node.attrs).toEqual({ num_args: String(uses) });
        expect(g?.node.inputs).toHaveLength(uses);
      }
    }
  });

  it('honours aggregateCap: 10 parts under a cap of 16 are one add_n node', () => {
    const { data, y } = repeatedSum(10);
    const [g] = gradient({ registry: reg, ys: [y], yGrads: [v('h')], xs: [data], aggregateCap: 16 });
    expect(g?.node.op?.name).toBe('add_n');
    expect(g?.node.inputs).toHaveLength(10);
  });

  it('aggregateGradient drops zeros, keeps one when all are zero, and passes one part through', () => {
    const a = v('a');
    const b = v('b');
    const z = op1('zeros_like', 'z', [a]);
    expect(aggregateGradient(reg, [])).toBeUndefined();
    expect(aggregateGradient(reg, [a])).toBe(a);
    expect(aggregateGradient(reg, [z, b])).toBe(b);
    expect(aggregateGradient(reg, [z, op1('zeros_like', 'z2', [b])])).toBe(z);
    const s = aggregateGradient(reg, [a, z, b]) as NodeEntry;
    expect(s.node.op?.name).toBe('add_n');
    expect(s.node.inputs).toEqual([a, b]);
  });

  it('never adds control dependencies to nodes it does not own', () => {
    const parts = Array.from({ length: 9 }, (_, i) => op1('relu', `r${i}`, [v(`x${i}`)]));
    const s = aggregateGradient(reg, parts) as NodeEntry;
    expect(chainParts(s)).toEqual(parts);
    for (const p of parts) expect(p.node.controlDeps).toEqual([]);
  });

  it('skips the ordering dependency where it would make a cycle', () => {
    const p0 = op1('relu', 'p0', [v('x')]);
    const p1 = op1('exp', 'p1', [p0]); // p1 reads p0: p0 cannot wait for a sum of p1
    const rest = Array.from({ length: 7 }, (_, i) => op1('relu', `r${i}`, [v(`y${i}`)]));
    const owned = new Set([p0, p1, ...rest].map((e) => e.node));
    const s = aggregateGradient(reg, [p1, p0, ...rest], { owned }) as NodeEntry;
    expect(p0.node.controlDeps).toEqual([]);
    expect(rest[0]?.node.controlDeps).toHaveLength(1);
    expect(() => new IndexedGraph([s])).not.toThrow();
    // The nodes it made are now owned.
    expect(owned.has(s.node)).toBe(true);
  });

  it('falls back to the _grad_add chain when the registry has no add_n', () => {
    const bare = {
      find: (n: string) => (n === 'add_n' ? undefined : reg.find(n)),
      get: (n: string) => reg.get(n),
    } as unknown as OpRegistry;
    const s = aggregateGradient(bare, [v('a'), v('b')]) as NodeEntry;
    expect(chainParts(s)).toHaveLength(2);
  });
});

describe('gradient: nodes, names and wiring', () => {
  it('names the first backward node <fwd>_backward and gives backward ops the forward node as control dep', () => {
    const x = v('x');
    const w = v('fc1_weight');
    const b = v('fc1_bias');
    const fc = op('FullyConnected', 'fc1', [x, w, b], { num_hidden: 4 });
    const [dx, dw, db] = gradient({ registry: reg, ys: [entry(fc)], yGrads: [v('h')], xs: [x, w, b] });
    const bwd = dx?.node as GraphNode;
    expect(bwd.name).toBe('fc1_backward');
    expect(bwd.op?.name).toBe('_backward_FullyConnected');
    expect(bwd.controlDeps[0]).toBe(fc);
    expect(bwd.attrs).toMatchObject({ num_hidden: '4' });
    expect(dx?.index).toBe(0);
    expect(dw?.node).toBe(bwd);
    expect(dw?.index).toBe(1);
    // The bias gradient keeps the symbolic reshape_like (shapes are not known here).
    expect(db?.node.op?.name).toBe('reshape_like');
    expect(db?.node.name).toBe('fc1_backward_1');
    expect(db?.node.inputs).toEqual([entry(bwd, 2), b]);
    expect(bwd.inputs[1]).toEqual(x);
  });

  it('keeps _broadcast_backward for broadcasting ops', () => {
    const a = v('a');
    const b = v('b');
    const y = op1('broadcast_mul', 'm', [a, b]);
    const [da, db] = gradient({ registry: reg, ys: [y], yGrads: [v('h')], xs: [a, b] });
    for (const [g, x] of [
      [da, a],
      [db, b],
    ] as const) {
      expect(g?.node.op?.name).toBe('_broadcast_backward');
      expect(g?.node.inputs[1]).toEqual(x);
      expect(g?.node.controlDeps[0]).toBe(y.node);
    }
  });

  it('makes zeros_like(output) for an output no gradient reached', () => {
    const x = v('x');
    const split = op('SliceChannel', 'split', [x], { num_outputs: 2 });
    const [dx] = gradient({ registry: reg, ys: [entry(split, 0)], yGrads: [v('h')], xs: [x] });
    expect(dx?.node.op?.name).toBe('Concat');
    const zero = dx?.node.inputs[1] as NodeEntry;
    expect(zero.node.op?.name).toBe('zeros_like');
    expect(zero.node.name).toBe('split_out1_zero_grad');
    expect(zero.node.inputs).toEqual([entry(split, 1)]);
  });

  it('passes isTrain to builders (Dropout at inference is a copy of the gradient)', () => {
    const x = v('x');
    const d = entry(op('Dropout', 'drop', [x], { p: 0.5 }));
    const h = v('h');
    const [train] = gradient({ registry: reg, ys: [d], yGrads: [h], xs: [x] });
    const [infer] = gradient({ registry: reg, ys: [d], yGrads: [h], xs: [x], isTrain: false });
    expect(train?.node.op?.name).toBe('_backward_Dropout');
    expect(infer?.node.op?.name).toBe('_copy');
    expect(infer?.node.inputs).toEqual([h]);
  });

  it('differentiates only nodes computed from an x', () => {
    const data = v('data');
    const w = v('w');
    const pre = op1('relu', 'pre', [data]);
    const fc = op1('FullyConnected', 'fc', [pre, w], { num_hidden: 3, no_bias: true });
    const [dw] = gradient({ registry: reg, ys: [fc], yGrads: [v('h')], xs: [w] });
    const names = nodesOf([dw as NodeEntry]).map((n) => n.name);
    expect(names).toContain('fc_backward');
    expect(names.some((n) => n.startsWith('pre_backward'))).toBe(false);
  });

  it('handles a 5000-node chain without recursion', () => {
    const x = v('x');
    let y = x;
    for (let i = 0; i < 5000; i++) y = op1('tanh', `t${i}`, [y]);
    const [dx] = gradient({ registry: reg, ys: [y], yGrads: [v('h')], xs: [x] });
    expect(dx?.node.name).toBe('t0_backward');
    // 5000 forward + 5000 backward nodes + x + h.
    expect(new IndexedGraph([dx as NodeEntry]).nodes).toHaveLength(10002);
  });

  it('does not change the forward graph', () => {
    const x = v('x');
    const y = op1('tanh', 't', [op1('exp', 'e', [x])]);
    const before = nodesOf([y]).map((n) => [n.name, n.inputs.length, n.controlDeps.length]);
    gradient({ registry: reg, ys: [y], yGrads: [v('h')], xs: [x] });
    expect(nodesOf([y]).map((n) => [n.name, n.inputs.length, n.controlDeps.length])).toEqual(before);
  });
});

describe('gradient: zeros, copies and aux states', () => {
  it("gives zeros_like(x) to an x behind a 'zero' gradient", () => {
    const x = v('x');
    const y = op1('argmax', 'am', [x], { axis: 1 });
    const [dx] = gradient({ registry: reg, ys: [y], yGrads: [v('h')], xs: [x] });
    expect(dx?.node.op?.name).toBe('zeros_like');
    expect(dx?.node.name).toBe('x_zero_grad');
    expect(dx?.node.inputs).toEqual([x]);
  });

  it('BlockGrad stops one path only', () => {
    const x = v('x');
    const y = op1('elemwise_add', 'add', [op1('exp', 'e', [x]), op1('BlockGrad', 'bg', [x])]);
    const [dx] = gradient({ registry: reg, ys: [y], yGrads: [v('h')], xs: [x] });
    // One part only: no sum node, the gradient of exp directly.
    expect(dx?.node.op?.name).toBe('_backward_exp');
    expect(dx?.node.name).toBe('e_backward');
  });

  it('gives _copy nodes to further xs sharing one gradient entry (add_n passes the head gradient on)', () => {
    const a = v('a');
    const b = v('b');
    const c = v('c');
    const h = v('h');
    const y = op1('add_n', 'sum', [a, b, c], { num_args: 3 });
    const [da, db, dc, da2] = gradient({ registry: reg, ys: [y], yGrads: [h], xs: [a, b, c, a] });
    expect(da).toBe(h);
    for (const [g, k] of [
      [db, 1],
      [dc, 2],
      [da2, 3],
    ] as const) {
      expect(g?.node.op?.name).toBe('_copy');
      expect(g?.node.name).toBe(`h_${k}_copy`);
      expect(g?.node.inputs).toEqual([h]);
    }
    const shared = gradient({ registry: reg, ys: [y], yGrads: [h], xs: [a, b], copyOp: null });
    expect(shared).toEqual([h, h]);
  });

  it('gives mutated inputs (aux states) no gradient', () => {
    const r = createOpRegistry();
    r.define({
      name: 'test_aux_op',
      numInputs: 2,
      listInputNames: ['data', 'state'],
      mutateInputs: () => [1],
      inferShape: () => false,
      gradient: { inputs: 'none', build: (g) => [g.ograd(0), g.ograd(0)] },
    });
    const x = v('x');
    const s = v('s');
    const h = v('h');
    const y = entry(op('test_aux_op', 'aux', [x, s], undefined, r));
    const [dx, ds] = gradient({ registry: r, ys: [y], yGrads: [h], xs: [x, s] });
    expect(dx).toBe(h);
    expect(ds?.node.op?.name).toBe('zeros_like');
    expect(ds?.node.inputs).toEqual([s]);
  });

  it('sums the gradients of a head listed twice', () => {
    const x = v('x');
    const y = op1('exp', 'e', [x]);
    const [dx] = gradient({ registry: reg, ys: [y, y], yGrads: [v('h0'), v('h1')], xs: [x] });
    const sum = dx?.node.inputs[0] as NodeEntry;
    expect(sum.node.op?.name).toBe('add_n');
    expect(sum.node.inputs.map((e) => e.node.name)).toEqual(['h0', 'h1']);
  });
});

describe('gradient: errors', () => {
  it('names a non-differentiable op with a gradient flowing into it', () => {
    const w = v('w');
    const g = v('g');
    const y = op1('sgd_update', 'upd', [w, g], { lr: 0.1 });
    let err: unknown;
    try {
      gradient({ registry: reg, ys: [y], yGrads: [v('h')], xs: [g] });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(MXNetError);
    expect((err as MXNetError).message).toContain(
      "Operator sgd_update is non-differentiable because it didn't register FGradient attribute.",
    );
    expect((err as MXNetError).message).toContain('upd');
    expect((err as MXNetError).op).toBe('sgd_update');
  });

  it('accepts a non-differentiable op no x reaches, or one only zeros flow into', () => {
    const w = v('w');
    const g = v('g');
    const x = v('x');
    const upd = op1('sgd_update', 'upd', [w, g], { lr: 0.1 });
    const y = op1('elemwise_add', 'add', [upd, x]);
    expect(gradient({ registry: reg, ys: [y], yGrads: [v('h')], xs: [x] })).toHaveLength(1);
    // Only argmax (a zero gradient) reads the update: nothing flows into it.
    const y2 = op1('elemwise_add', 'add2', [op1('argmax', 'am', [upd], { axis: 0 }), x]);
    const [dg] = gradient({ registry: reg, ys: [y2], yGrads: [v('h')], xs: [g, x] });
    expect(dg?.node.op?.name).toBe('zeros_like');
  });

  it('rejects mismatched head gradients and xs outside the graph', () => {
    const x = v('x');
    const y = op1('exp', 'e', [x]);
    expect(() => gradient({ registry: reg, ys: [y], yGrads: [], xs: [x] })).toThrow(/1 heads/);
    expect(() => gradient({ registry: reg, ys: [y], yGrads: [v('h')], xs: [v('other')] })).toThrow(
      /Cannot differentiate with respect to the 1-th variable \(other\)/,
    );
    expect(gradient({ registry: reg, ys: [y], yGrads: [v('h')], xs: [] })).toEqual([]);
  });

  it('rejects a gradient that reads an input it did not declare, or returns the wrong count', () => {
    const r = createOpRegistry();
    r.define({
      name: 'test_sneaky',
      inferShape: () => false,
      gradient: { inputs: 'none', build: (g) => [g.op1('relu', [g.input(0)])] },
    });
    r.define({
      name: 'test_short',
      numInputs: 2,
      inferShape: () => false,
      gradient: { build: (g) => [g.ograd(0)] },
    });
    const x = v('x');
    const sneaky = entry(op('test_sneaky', 's', [x], undefined, r));
    expect(() => gradient({ registry: r, ys: [sneaky], yGrads: [v('h')], xs: [x] })).toThrow(
      /reads input 0, which it did not declare/,
    );
    const short = entry(op('test_short', 't', [x, v('y')], undefined, r));
    expect(() => gradient({ registry: r, ys: [short], yGrads: [v('h')], xs: [x] })).toThrow(
      /returned 1 entries for 2 inputs/,
    );
  });

  it('names the forward node when a gradient op gets bad parameters', () => {
    const r = createOpRegistry();
    r.define({
      name: 'test_badparams',
      inferShape: () => false,
      gradient: { inputs: 'none', build: (g) => [g.op1('sum', [g.ograd(0)], { no_such_param: 1 })] },
    });
    const x = v('x');
    const y = entry(op('test_badparams', 'bp', [x], undefined, r));
    expect(() => gradient({ registry: r, ys: [y], yGrads: [v('h')], xs: [x] })).toThrow(
      /building the gradient of node bp/,
    );
    r.define({
      name: 'test_badop',
      inferShape: () => false,
      gradient: { inputs: 'none', build: (g) => [g.op1('no_such_op', [g.ograd(0)])] },
    });
    const y2 = entry(op('test_badop', 'bo', [x], undefined, r));
    expect(() => gradient({ registry: r, ys: [y2], yGrads: [v('h')], xs: [x] })).toThrow(
      /building the gradient of node bo: operator no_such_op is not registered/,
    );
  });
});
