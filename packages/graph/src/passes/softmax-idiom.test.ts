/**
 * The softmax idiom rewrite: the pattern becomes one softmax node over the right axis, and
 * anything that is not exactly the idiom (other axes, no keepdims, an intermediate read elsewhere,
 * integer dtypes) is left alone. Values are checked against the unrewritten graph by the executor
 * tests of @mx/symbol.
 */
import { createOpRegistry } from '@mx/ops';
import { describe, expect, it } from 'vitest';
import { IndexedGraph } from '../indexed.js';
import { entry, type GraphNode } from '../node.js';
import { inferShape, inferType } from './infer.js';
import { byName, TestGraph } from './infer-test-graphs.js';
import { rewriteSoftmaxIdiom } from './softmax-idiom.js';

const registry = createOpRegistry();
const g = new TestGraph(registry);

function idiom(x: GraphNode, maxAxis = '1', sumAxis = '1', keep = 'True') {
  const m = g.op('max', 'm', { axis: maxAxis, keepdims: keep }, [x]);
  const e = g.op('exp', 'e', {}, [g.op('broadcast_sub', 'd', {}, [x, m])]);
  const s = g.op('sum', 's', { axis: sumAxis, keepdims: keep }, [e]);
  return { e, s, y: g.op('broadcast_div', 'y', {}, [e, s]) };
}

function rewrite(idx: IndexedGraph, shape = [4, 5], dtype: 'float32' | 'int32' = 'float32') {
  const shapes = inferShape(idx, byName(idx, { x: shape })).values;
  const dtypes = inferType(idx, byName(idx, { x: dtype })).values;
  const r = rewriteSoftmaxIdiom(idx, { registry, shapes, dtypes });
  return { ...r, idx: new IndexedGraph(r.outputs) };
}

const ops = (idx: IndexedGraph) => idx.nodes.filter((n) => n.node.op).map((n) => n.node.op?.name);

describe('rewriteSoftmaxIdiom', () => {
  it('turns exp(x - max) / sum(exp(x - max)) into softmax over that axis', () => {
    const x = g.v('x');
    const { y } = idiom(x, '-1', '(1,)');
    const t = g.op('tanh', 't', {}, [y]);
    const r = rewrite(g.index(t));
    expect(r.rewritten).toBe(1);
    expect(ops(r.idx)).toEqual(['softmax', 'tanh']);
    const sm = r.idx.nodes.find((n) => n.node.op?.name === 'softmax')?.node;
    expect(sm?.name).toBe('y');
    expect(sm?.parsed.axis).toBe(1);
    expect(sm?.inputs[0]?.node).toBe(x);
    const s = inferShape(r.idx, byName(r.idx, { x: [4, 5] }));
    expect(s.values[r.idx.entryId(r.idx.outputs[0] as never)]).toEqual([4, 5]);
  });

  it('works over a middle axis', () => {
    const x = g.v('x');
    const r = rewrite(g.index(idiom(x, '1', '1').y), [2, 3, 4]);
    expect(ops(r.idx)).toEqual(['softmax']);
    expect(r.idx.nodes.at(-1)?.node.parsed.axis).toBe(1);
  });

  it('leaves look-alikes alone', () => {
    const x = g.v('x');
    expect(rewrite(g.index(idiom(x, '0', '1').y)).rewritten).toBe(0); // different axes
    expect(rewrite(g.index(idiom(x, '1', '1', 'False').y), [4, 4]).rewritten).toBe(0); // no keepdims
    expect(rewrite(g.index(idiom(x).y), [4, 5], 'int32').rewritten).toBe(0); // integers
    // exp's value read by someone else (as the gradient pass does): kept.
    const { e, y } = idiom(x);
    const r = rewrite(new IndexedGraph([entry(y), entry(e)]));
    expect(r.rewritten).toBe(0);
    // max over another tensor than the one subtracted from.
    const other = g.v('w');
    const m = g.op('max', 'm2', { axis: '1', keepdims: 'True' }, [other]);
    const e2 = g.op('exp', 'e2', {}, [g.op('broadcast_sub', 'd2', {}, [x, m])]);
    const y2 = g.op('broadcast_div', 'y2', {}, [
      e2,
      g.op('sum', 's2', { axis: '1', keepdims: 'True' }, [e2]),
    ]);
    const idx = g.index(y2);
    const shapes = inferShape(idx, byName(idx, { x: [4, 5], w: [4, 5] })).values;
    const dtypes = inferType(idx, byName(idx, { x: 'float32', w: 'float32' })).values;
    expect(rewriteSoftmaxIdiom(idx, { registry, shapes, dtypes }).rewritten).toBe(0);
  });
});
