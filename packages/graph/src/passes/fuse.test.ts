/**
 * Structure of the fusion pass (values are checked against unfused graphs by the executor tests in
 * @mx/symbol, which run both on real backends).
 */
import { createOpRegistry, exprKey } from '@mx/ops';
import { describe, expect, it } from 'vitest';
import { IndexedGraph } from '../indexed.js';
import { entry } from '../node.js';
import { fuseElementwise } from './fuse.js';
import { inferShape, inferType } from './infer.js';
import { byName, TestGraph } from './infer-test-graphs.js';

const reg = createOpRegistry();
const g = new TestGraph(reg);

function fuse(idx: IndexedGraph, shapes: Record<string, number[]>, dtype = 'float32', minOps?: number) {
  const s = inferShape(idx, byName(idx, shapes));
  const dtypes = Object.fromEntries(Object.keys(shapes).map((k) => [k, dtype]));
  const t = inferType(idx, byName(idx, dtypes as Record<string, 'float32'>));
  const r = fuseElementwise(idx, { shapes: s.values, dtypes: t.values, ...(minOps ? { minOps } : {}) });
  return { ...r, fused: new IndexedGraph(r.outputs) };
}

const opNames = (idx: IndexedGraph) => idx.nodes.filter((n) => n.node.op).map((n) => n.node.op?.name);

describe('fuseElementwise', () => {
  it('does not absorb an entry read twice, and bounds duplicated subexpressions', () => {
    const x = g.v('x');
    const e = g.op('exp', 'e', {}, [x]);
    const sq = g.op('elemwise_mul', 'sq', {}, [e, e]);
    expect(fuse(g.index(sq), { x: [3] }).fusedNodes).toBe(0);
    // 40 relus: each reads its input twice, so composing all would double the tree 40 times.
    let h = x;
    for (let i = 0; i < 40; i++) h = g.op('relu', `r${i}`, {}, [h]);
    const res = fuse(g.index(h), { x: [3] });
    for (const n of res.fused.nodes) {
      const f = n.node.op?.elementwise?.forward;
      if (f) expect(exprKey(f).length).toBeLessThan(256 * 12);
    }
    expect(res.fusedOps).toBe(40);
  });

  it('turns a chain a*b+c, relu into one node over the three leaves', () => {
    const [a, b, c] = [g.v('a'), g.v('b'), g.v('c')];
    const m = g.op('elemwise_mul', 'm', {}, [a, b]);
    const s = g.op('elemwise_add', 's', {}, [m, c]);
    const r = g.op('relu', 'r', {}, [s]);
    const res = fuse(g.index(r), { a: [4, 5], b: [4, 5], c: [4, 5] });
    expect(res.fusedNodes).toBe(1);
    expect(res.fusedOps).toBe(3);
    const ops = res.fused.nodes.filter((n) => n.node.op);
    expect(ops).toHaveLength(1);
    const node = (ops[0] as (typeof ops)[number]).node;
    expect(node.inputs.map((e) => e.node.name)).toEqual(['a', 'b', 'c']);
    // relu is select(x <= 0, 0, x): the sum is computed twice inside the kernel instead of stored.
    expect(exprKey(node.op?.elementwise?.forward as never)).toBe(
      'sel(le(add(mul(i0,i1),i2),c(0)),c(0),add(mul(i0,i1),i2))',
    );
    // The fused op infers its own shape.
    const s2 = inferShape(res.fused, byName(res.fused, { a: [4, 5], b: [4, 5], c: [4, 5] }));
    expect(s2.numUnknown).toBe(0);
  });

  it('bakes scalar parameters and keeps broadcasting leaves', () => {
    const x = g.v('x');
    const mx = g.v('mx');
    const d = g.op('broadcast_sub', 'd', {}, [x, mx]);
    const e = g.op('exp', 'e', {}, [d]);
    const h = g.op('_mul_scalar', 'h', { scalar: '0.5' }, [e]);
    const res = fuse(g.index(h), { x: [8, 10], mx: [8, 1] });
    const node = res.fused.nodes.find((n) => n.node.op)?.node;
    expect(exprKey(node?.op?.elementwise?.forward as never)).toBe('mul(exp(sub(i0,i1)),c(0.5))');
    expect(node?.op?.elementwise?.broadcast).toBe(true);
    const s2 = inferShape(res.fused, byName(res.fused, { x: [8, 10], mx: [8, 1] }));
    expect(s2.values[res.fused.entryId(res.fused.outputs[0] as never)]).toEqual([8, 10]);
  });

  it('keeps an intermediate another node reads, and graph outputs', () => {
    const x = g.v('x');
    const e = g.op('exp', 'e', {}, [x]);
    const sum = g.op('sum', 'sum', { axis: '1', keepdims: 'True' }, [e]);
    const div = g.op('broadcast_div', 'div', {}, [e, sum]);
    const res = fuse(g.index(div), { x: [3, 4] });
    expect(res.fusedNodes).toBe(0);
    expect(opNames(res.fused)).toEqual(['exp', 'sum', 'broadcast_div']);
    // A graph output is never absorbed.
    const n = g.op('negative', 'n', {}, [x]);
    const t = g.op('tanh', 't', {}, [n]);
    const res2 = fuse(new IndexedGraph([entry(n), entry(t)]), { x: [3] });
    expect(res2.fusedNodes).toBe(0);
  });

  it('leaves integer chains, non-elementwise ops and views alone', () => {
    const [a, b] = [g.v('a'), g.v('b')];
    const s = g.op('elemwise_add', 's', {}, [a, b]);
    const r = g.op('negative', 'r', {}, [s]);
    expect(fuse(g.index(r), { a: [4], b: [4] }, 'int32').fusedNodes).toBe(0);
    expect(fuse(g.index(r), { a: [4], b: [4] }, 'float64').fusedNodes).toBe(1);
    const cond = g.v('cond');
    const w = g.op('where', 'w', {}, [cond, s, b]);
    const res = fuse(g.index(g.op('exp', 'ex', {}, [w])), { a: [3, 2], b: [3, 2], cond: [3] });
    expect(opNames(res.fused)).toEqual(['elemwise_add', 'where', 'exp']);
  });

  it('respects minOps and keeps the order of several outputs', () => {
    const x = g.v('x');
    const e1 = g.op('exp', 'e1', {}, [x]);
    const l1 = g.op('log', 'l1', {}, [e1]);
    const e2 = g.op('sin', 'e2', {}, [x]);
    const c2 = g.op('cos', 'c2', {}, [e2]);
    const t2 = g.op('tanh', 't2', {}, [c2]);
    const idx = new IndexedGraph([entry(l1), entry(t2)]);
    const res = fuse(idx, { x: [5] }, 'float32', 3);
    expect(res.fusedNodes).toBe(1);
    expect(res.fused.outputs).toHaveLength(2);
    expect(res.outputs[0]?.node.op?.name).toBe('log');
    expect(exprKey(res.outputs[1]?.node.op?.elementwise?.forward as never)).toBe('tanh(cos(sin(i0)))');
    // The input graph is not changed.
    expect(l1.inputs[0]?.node).toBe(e1);
  });

  it('redirects control deps on fused nodes (backward nodes depend on their forward node)', () => {
    const x = g.v('x');
    const e = g.op('exp', 'e', {}, [x]);
    const t = g.op('tanh', 't', {}, [e]);
    const fc = g.op('FullyConnected', 'fc', { num_hidden: '2', no_bias: 'True' }, [t, g.v('w')]);
    // A node after the group depending on a member; another before the root depending on nothing fused.
    const late = g.op('negative', 'late', {}, [fc], [e, t]);
    const res = fuse(g.index(late), { x: [3, 4], w: [2, 4] });
    expect(res.fusedNodes).toBe(1);
    const node = res.fused.nodes.find((n) => n.node.name === 'late')?.node;
    expect(node?.controlDeps.map((d) => d.name)).toEqual(['t_fused']);
    expect(res.fused.nodes.every((n) => n.node.controlDeps.every((d) => d !== undefined))).toBe(true);
  });

  it('handles a 10,000-node chain', () => {
    const x = g.v('x');
    let h = x;
    for (let i = 0; i < 10_000; i++) h = g.op(i % 2 ? 'tanh' : 'sigmoid', `n${i}`, {}, [h]);
    const t0 = performance.now();
    const res = fuse(g.index(h), { x: [2] }, 'float32');
    expect(performance.now() - t0).toBeLessThan(5000);
    // Groups are capped at 64 ops: 157 kernels instead of 10,000.
    expect(res.fusedNodes).toBe(Math.ceil(10_000 / 64));
    expect(res.fusedOps).toBe(10_000);
  });
});
