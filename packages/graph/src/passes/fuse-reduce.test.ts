/**
 * Structure of fusion's reduce prologues (`reducePrologue`): which reductions take their
 * elementwise producers into one fused-reduction node, and which stay as they are. Values are
 * checked against unfused executors in @mx/symbol (reduce-fusion.test.ts) and against float64
 * references in @mx/cpu-wasm (reduce-compile.test.ts).
 */
import { createOpRegistry, exprKey } from '@mx/ops';
import { describe, expect, it } from 'vitest';
import { IndexedGraph } from '../indexed.js';
import { entry, type GraphNode } from '../node.js';
import { fuseElementwise } from './fuse.js';
import { inferShape, inferType } from './infer.js';
import { byName, TestGraph } from './infer-test-graphs.js';

const reg = createOpRegistry();
const g = new TestGraph(reg);

function fuse(idx: IndexedGraph, shapes: Record<string, number[]>, reducePrologue = true) {
  const s = inferShape(idx, byName(idx, shapes));
  const dtypes = Object.fromEntries(Object.keys(shapes).map((k) => [k, 'float32' as const]));
  const t = inferType(idx, byName(idx, dtypes));
  const r = fuseElementwise(idx, { shapes: s.values, dtypes: t.values, reducePrologue });
  const fused = new IndexedGraph(r.outputs);
  return { ...r, fused, ops: fused.nodes.filter((n) => n.node.op).map((n) => n.node) };
}

/** sum(square(a - b), axis) with the given reduce attrs. */
function sqdiffSum(attrs: Record<string, string>, op = 'sum') {
  const [a, b] = [g.v('a'), g.v('b')];
  const d = g.op('elemwise_sub', 'd', {}, [a, b]);
  const sq = g.op('square', 'sq', {}, [d]);
  return g.op(op, 'red', attrs, [sq]);
}

describe('fuseElementwise with reduce prologues', () => {
  it('folds a chain into the sum over trailing axes reading it: one node over the leaves', () => {
    const res = fuse(g.index(sqdiffSum({ axis: '(1, 2)' })), { a: [4, 5, 6], b: [4, 5, 6] });
    expect(res.ops).toHaveLength(1);
    const n = res.ops[0] as GraphNode;
    expect(n.name).toBe('red_fused');
    expect(n.inputs.map((e) => e.node.name)).toEqual(['a', 'b']);
    const def = n.op?.def.fusedReduce;
    expect(def).toMatchObject({ reducer: 'sum', axis: 1, keepdims: false });
    expect(exprKey(def?.prologue as never)).toBe('square(sub(i0,i1))');
    expect(res.fusedNodes).toBe(1);
    expect(res.fusedOps).toBe(3);
    // The fused node infers MXNet's reduce shapes: kept dims, ones with keepdims, (1,) for all axes.
    const shapes = inferShape(res.fused, byName(res.fused, { a: [4, 5, 6], b: [4, 5, 6] }));
    expect(shapes.values[res.fused.entryId(res.fused.outputs[0]?.nodeId as number, 0)]).toEqual([4]);
  });

  it('takes mean, max and min, keepdims, negative axes and the full reduction', () => {
    const cases: [string, Record<string, string>, number[], number][] = [
      ['mean', { axis: '-1', keepdims: 'True' }, [4, 5, 1], 2],
      ['max', { axis: '(-2, -1)' }, [4], 1],
      ['min', {}, [1], 0],
      ['sum', { axis: '()' }, [1], 0],
    ];
    for (const [op, attrs, out, axis] of cases) {
      const res = fuse(g.index(sqdiffSum(attrs, op)), { a: [4, 5, 6], b: [4, 5, 6] });
      expect(res.ops, op).toHaveLength(1);
      expect(res.ops[0]?.op?.def.fusedReduce, op).toMatchObject({ reducer: op, axis });
      const s = inferShape(res.fused, byName(res.fused, { a: [4, 5, 6], b: [4, 5, 6] }));
      expect(s.values[res.fused.entryId(res.fused.outputs[0]?.nodeId as number, 0)], op).toEqual(out);
    }
  });

  it('folds a single elementwise op too (below the elementwise group minimum)', () => {
    const x = g.v('x');
    const res = fuse(g.index(g.op('sum', 's', { axis: '1' }, [g.op('exp', 'e', {}, [x])])), { x: [3, 7] });
    expect(res.ops).toHaveLength(1);
    expect(exprKey(res.ops[0]?.op?.def.fusedReduce?.prologue as never)).toBe('exp(i0)');
  });

  it('leaves reductions over leading or middle axes, exclude, and broadcast leaves alone', () => {
    const leading = fuse(g.index(sqdiffSum({ axis: '0' })), { a: [4, 5, 6], b: [4, 5, 6] });
    expect(leading.ops.map((n) => n.op?.name)).toEqual(['_fused_elemwise_sub_square', 'sum']);
    const middle = fuse(g.index(sqdiffSum({ axis: '1' })), { a: [4, 5, 6], b: [4, 5, 6] });
    expect(middle.ops.some((n) => n.op?.def.fusedReduce)).toBe(false);
    const exclude = fuse(g.index(sqdiffSum({ axis: '0', exclude: 'True' })), { a: [4, 5, 6], b: [4, 5, 6] });
    expect(exclude.ops.some((n) => n.op?.def.fusedReduce)).toBe(false);
    const [a, b] = [g.v('a'), g.v('b')];
    const bm = g.op('broadcast_mul', 'bm', {}, [a, b]);
    const bc = fuse(g.index(g.op('sum', 's', { axis: '-1' }, [bm])), { a: [4, 6], b: [1, 6] });
    expect(bc.ops.map((n) => n.op?.name)).toEqual(['broadcast_mul', 'sum']);
  });

  it('absorbs an entry that other nodes read only for its shape, handing them a leaf instead', () => {
    const [a, b] = [g.v('a'), g.v('b')];
    const sq = g.op('square', 'sq', {}, [g.op('elemwise_sub', 'd', {}, [a, b])]);
    const s = g.op('sum', 's', { axis: '-1' }, [sq]);
    const z = g.op('zeros_like', 'z', {}, [sq]); // reads sq's shape only (ignoreInputs)
    const res = fuse(g.index(s, z), { a: [4, 6], b: [4, 6] });
    expect(res.ops.map((n) => n.name)).toEqual(['s_fused', 'z']);
    const zNode = res.ops[1] as GraphNode;
    expect(zNode.inputs.map((e) => e.node.name)).toEqual(['a']);
    const shapes = inferShape(res.fused, byName(res.fused, { a: [4, 6], b: [4, 6] }));
    expect(shapes.values[res.fused.entryId(res.fused.outputs[1]?.nodeId as number, 0)]).toEqual([4, 6]);
  });

  it('keeps an intermediate another node reads, and does nothing with the option off', () => {
    const x = g.v('x');
    const e = g.op('exp', 'e', {}, [x]);
    const s = g.op('sum', 's', { axis: '-1' }, [e]);
    const both = fuse(g.index(s, e), { x: [3, 7] });
    expect(both.ops.map((n) => n.op?.name)).toEqual(['exp', 'sum']);
    const off = fuse(g.index(sqdiffSum({ axis: '-1' })), { a: [4, 6], b: [4, 6] }, false);
    expect(off.ops.map((n) => n.op?.name)).toEqual(['_fused_elemwise_sub_square', 'sum']);
    // the elementwise chain below a reduction that reads it as graph output stays a separate node
    const d = g.op('elemwise_sub', 'd', {}, [g.v('a'), g.v('b')]);
    const out = fuse(g.index(g.op('sum', 's', { axis: '-1' }, [d]), entry(d, 0)), { a: [4, 6], b: [4, 6] });
    expect(out.ops.map((n) => n.op?.name)).toEqual(['elemwise_sub', 'sum']);
  });
});
