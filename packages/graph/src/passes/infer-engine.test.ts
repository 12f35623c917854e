/**
 * The sweep engine's own contract: seeding (caller values, hidden attributes, pinned entries),
 * MXNet's stop rule, both directions, the backward-node fallback, fresh results, scale (a
 * 10,000-node chain) and a property over random elementwise graphs. MXNet's test cases live in
 * infer.test.ts; error reports in infer-errors.test.ts.
 */
import { shapesEqual } from '@mx/base';
import { createOpRegistry, OpRegistry, type ShapeSlots } from '@mx/ops';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { entry, type GraphNode } from '../node.js';
import { inferShape, inferStorageType, inferType } from './infer.js';
import { byName, idOf, resultOf, TestGraph } from './infer-test-graphs.js';

const g = new TestGraph(createOpRegistry());

/** A registry with one elementwise op that counts its inference calls. */
function probeRegistry() {
  const reg = new OpRegistry();
  const calls = { n: 0 };
  reg.define({
    name: 'probe',
    inferShape: (_a, ins: ShapeSlots, outs: ShapeSlots) => {
      calls.n++;
      const s = ins[0] ?? outs[0];
      if (s === undefined) return false;
      ins[0] = s;
      outs[0] = s;
      return true;
    },
  });
  return { t: new TestGraph(reg), calls };
}

describe('seeding', () => {
  it('reads legacy __shape__ text: 0 is an unknown dim, () an unknown shape', () => {
    const a = g.v('a', { __shape__: '(128, 0)' });
    const b = g.v('b', { __shape__: '()' });
    const c = g.v('c', { __shape__: '[2,3]' });
    const idx = g.index(a, b, c);
    const res = inferShape(idx);
    expect(resultOf(idx, res, 'a')).toEqual([128, -1]);
    expect(resultOf(idx, res, 'b')).toBeUndefined();
    expect(resultOf(idx, res, 'c')).toEqual([2, 3]);
    expect(res.numUnknown).toBe(2);
  });

  it('reads np-shape __shape__ text: () is a scalar, 0 a zero-size dim, -1 unknown', () => {
    const idx = g.index(
      g.v('a', { __shape__: '(128, 0)' }),
      g.v('b', { __shape__: '()' }),
      g.v('c', { __shape__: '(-1, 3)' }),
    );
    const res = inferShape(idx, {}, { npShape: true });
    expect(resultOf(idx, res, 'a')).toEqual([128, 0]);
    expect(resultOf(idx, res, 'b')).toEqual([]);
    expect(resultOf(idx, res, 'c')).toEqual([-1, 3]);
    expect(res.numUnknown).toBe(1);
  });

  it('rejects malformed hidden attributes, naming the variable', () => {
    expect(() => inferShape(g.index(g.v('w', { __shape__: '(2, x)' })))).toThrow(
      /variable `w`.*__shape__.*\(2, x\)/,
    );
    expect(() => inferShape(g.index(g.v('w', { __shape__: '(-1, 3)' })))).toThrow(/npShape: true/);
    expect(() => inferType(g.index(g.v('w', { __dtype__: '99' })))).toThrow(/variable `w`.*__dtype__/);
    expect(() => inferStorageType(g.index(g.v('w', { __storage_type__: '7' })))).toThrow(
      /variable `w`.*__storage_type__/,
    );
  });

  it('reads __dtype__ as the MXNet type flag (-1 = unknown)', () => {
    const idx = g.index(
      g.v('h', { __dtype__: '2' }),
      g.v('i', { __dtype__: '6' }),
      g.v('u', { __dtype__: '-1' }),
    );
    const res = inferType(idx);
    expect(resultOf(idx, res, 'h')).toBe('float16');
    expect(resultOf(idx, res, 'i')).toBe('int64');
    expect(resultOf(idx, res, 'u')).toBeUndefined();
  });

  it('a partial given shape is completed from __shape__; a contradicting one is an error', () => {
    const idx = g.index(g.v('a', { __shape__: '(4, 0)' }));
    expect(resultOf(idx, inferShape(idx, byName(idx, { a: [-1, 5] })), 'a')).toEqual([4, 5]);
    expect(() => inferShape(idx, byName(idx, { a: [-1, 5, 1] }))).toThrow(
      /variable `a`.*contradicts its __shape__/,
    );
  });

  it('known.nodes must name variables; entries must exist', () => {
    const x = g.v('x');
    const r = g.op('relu', 'r', {}, [x]);
    const idx = g.index(r);
    expect(() => inferShape(idx, { nodes: new Map([[idOf(idx, 'r'), [2]]]) })).toThrow(
      /node `r` \(relu\), not a variable/,
    );
    expect(() => inferShape(idx, { entries: new Map([[9, [2]]]) })).toThrow(
      /entry 9, which is not in the graph/,
    );
    expect(() => inferShape(idx, byName(idx, { x: [2, -3] }))).toThrow(/invalid dimension -3/);
  });

  it('a pinned op output propagates backward to the inputs', () => {
    const x = g.v('x');
    const r = g.op('relu', 'r', {}, [x]);
    const s = g.op('sigmoid', 's', {}, [r]);
    const idx = g.index(s);
    const res = inferShape(idx, { entries: new Map([[idx.entryOf(entry(s)), [3, 4]]]) });
    expect(res.values).toEqual([
      [3, 4],
      [3, 4],
      [3, 4],
    ]);
  });
});

describe('sweeps', () => {
  it('stops after one sweep when nothing can be learned', () => {
    const { t, calls } = probeRegistry();
    const x = t.v('x');
    const p3 = t.op('probe', 'p3', {}, [t.op('probe', 'p2', {}, [t.op('probe', 'p1', {}, [x])])]);
    const res = inferShape(t.index(p3));
    expect(res.numUnknown).toBe(4);
    expect(calls.n).toBe(3);
  });

  it('alternates: forward, then backward while the unknowns keep falling', () => {
    const { t, calls } = probeRegistry();
    const x = t.v('x');
    const p3 = t.op('probe', 'p3', {}, [t.op('probe', 'p2', {}, [t.op('probe', 'p1', {}, [x])])]);
    const idx = t.index(p3);
    const res = inferShape(idx, { entries: new Map([[idx.entryOf(entry(p3)), [6]]]) });
    expect(res.numUnknown).toBe(0);
    expect(res.values.every((s) => s !== undefined && shapesEqual(s, [6]))).toBe(true);
    // Forward: p1, p2, p3 (p3 fills p2's output). Backward: p3 is known and skipped, p2, p1.
    expect(calls.n).toBe(5);
  });

  it('a chain of 10,000 nodes is inferred quickly, without recursion', () => {
    const x = g.v('x');
    let h: GraphNode = x;
    for (let i = 0; i < 10_000; i++) h = g.op(i % 2 === 0 ? 'relu' : 'sigmoid', `n${i}`, {}, [h]);
    const idx = g.index(h);
    const t0 = performance.now();
    const res = inferShape(idx, byName(idx, { x: [32, 64] }));
    const ms = performance.now() - t0;
    expect(res.numUnknown).toBe(0);
    expect(resultOf(idx, res, 'n9999')).toEqual([32, 64]);
    expect(ms).toBeLessThan(2000);
    // From the far end too: every op runs twice at most.
    const back = inferShape(idx, { entries: new Map([[idx.entryOf(entry(h)), [5]]]) });
    expect(back.numUnknown).toBe(0);
    expect(resultOf(idx, back, 'x')).toEqual([5]);
  });

  it('property: one known entry of a random elementwise graph gives every entry its shape', () => {
    const unary = ['relu', 'sigmoid', 'tanh', 'negative', 'abs', 'identity'];
    const binary = ['elemwise_add', 'elemwise_mul', '_Plus', '_Minus'];
    const step = fc.record({
      op: fc.integer({ min: 0, max: unary.length + binary.length - 1 }),
      a: fc.nat(),
      b: fc.nat(),
    });
    fc.assert(
      fc.property(
        fc.array(step, { minLength: 1, maxLength: 30 }),
        fc.array(fc.integer({ min: 1, max: 5 }), { maxLength: 3 }),
        fc.nat(),
        fc.boolean(),
        (steps, shape, pick, viaEntry) => {
          const nodes: GraphNode[] = [g.v('x0'), g.v('x1')];
          steps.forEach((s, i) => {
            const a = nodes[s.a % nodes.length] as GraphNode;
            const b = nodes[s.b % nodes.length] as GraphNode;
            nodes.push(
              s.op < unary.length
                ? g.op(unary[s.op] as string, `n${i}`, {}, [a])
                : g.op(binary[s.op - unary.length] as string, `n${i}`, {}, [a, b]),
            );
          });
          const used = nodes.filter(
            (n, i) => i >= 2 || nodes.slice(2).some((m) => m.inputs.some((e) => e.node === n)),
          );
          const idx = g.index(...used);
          const target = used[pick % used.length] as GraphNode;
          const known = viaEntry
            ? { entries: new Map([[idx.entryOf(entry(target)), shape]]) }
            : target.op === null
              ? { nodes: new Map([[idx.nodeId(target), shape]]) }
              : { entries: new Map([[idx.entryOf(entry(target)), shape]]) };
          const res = inferShape(idx, known);
          // Independent oracle: the entries connected to the target (through any op, either
          // direction) get its shape; every other entry stays unknown.
          const comp = idx.nodes.map((_, i) => i);
          const find = (i: number): number => {
            while (comp[i] !== i) i = comp[i] as number;
            return i;
          };
          idx.nodes.forEach((n, i) => {
            for (const e of n.inputs) comp[find(e.nodeId)] = find(i);
          });
          const root = find(idx.nodeId(target));
          idx.nodes.forEach((_, i) => {
            const v = res.values[idx.entryId(i, 0)];
            if (find(i) === root) expect(v).toEqual(shape);
            else expect(v).toBeUndefined();
          });
        },
      ),
      { seed: 20240611, numRuns: 200 },
    );
  });
});

describe('results', () => {
  it('are fresh arrays; the graph and the caller’s values are untouched', () => {
    const a = g.v('a', { __shape__: '(2, 3)' });
    const b = g.v('b');
    const c = g.op('elemwise_add', 'c', {}, [a, b]);
    const idx = g.index(c);
    const given = [2, 3];
    const res = inferShape(idx, byName(idx, { b: given }));
    (res.values[0] as number[])[0] = 99;
    (res.values[1] as number[])[0] = 99;
    expect(given).toEqual([2, 3]);
    expect(a.attrs).toEqual({ __shape__: '(2, 3)' });
    expect(inferShape(idx, byName(idx, { b: given })).values).toEqual([
      [2, 3],
      [2, 3],
      [2, 3],
    ]);
  });

  it('dtype: float16 flows through FullyConnected to weight, bias and output', () => {
    // MXNet's FullyConnected type inference gives every input and the output data's dtype.
    const fc1 = g.op('FullyConnected', 'fc1', { num_hidden: '10' }, [g.v('data'), g.v('w'), g.v('b')]);
    const idx = g.index(fc1);
    const res = inferType(idx, byName(idx, { data: 'float16' as const }));
    expect(res.values).toEqual(['float16', 'float16', 'float16', 'float16']);
    expect(res.numUnknown).toBe(0);
  });

  it('dtype flows backward: the output dtype types the inputs', () => {
    const fc1 = g.op('FullyConnected', 'fc1', { num_hidden: '10' }, [g.v('data'), g.v('w'), g.v('b')]);
    const idx = g.index(fc1);
    const res = inferType(idx, { entries: new Map([[idx.entryOf(entry(fc1)), 'float64' as const]]) });
    expect(resultOf(idx, res, 'data')).toBe('float64');
    expect(resultOf(idx, res, 'w')).toBe('float64');
  });
});

describe('backward nodes', () => {
  /** fc = FullyConnected(data, w, b); its gradient node reads an output gradient `og`. */
  function fcWithBackward(withControlDep: boolean) {
    const data = g.v('data');
    const w = g.v('w');
    const fc1 = g.op('FullyConnected', 'fc', { num_hidden: '11' }, [data, w, g.v('b')]);
    const og = g.v('og');
    const bwd = g.op(
      '_backward_FullyConnected',
      'fc_backward',
      { num_hidden: '11' },
      [og, data, w],
      withControlDep ? [fc1] : [],
    );
    return g.index(entry(bwd, 0), entry(bwd, 1), entry(bwd, 2), entry(fc1));
  }

  it('copies the output gradient’s shape from the forward node in control_deps[0]', () => {
    const idx = fcWithBackward(true);
    const res = inferShape(idx, byName(idx, { data: [7, 100] }));
    // The gradient of fc's output has fc's output shape (7, num_hidden).
    expect(resultOf(idx, res, 'og')).toEqual([7, 11]);
    expect(resultOf(idx, res, 'fc_backward', 0)).toEqual([7, 100]);
    expect(resultOf(idx, res, 'fc_backward', 1)).toEqual([11, 100]);
    expect(resultOf(idx, res, 'fc_backward', 2)).toEqual([11]);
    expect(res.numUnknown).toBe(0);
  });

  it('without the control dependency the output gradient stays unknown', () => {
    const idx = fcWithBackward(false);
    const res = inferShape(idx, byName(idx, { data: [7, 100] }));
    expect(resultOf(idx, res, 'og')).toBeUndefined();
  });
});

describe('inferStorageType', () => {
  it('dense graphs: every entry default, ops dispatch fcompute, variables variable', () => {
    const fc1 = g.op('FullyConnected', 'fc1', { num_hidden: '10' }, [g.v('data'), g.v('w'), g.v('b')]);
    const idx = g.index(g.op('relu', 'r', {}, [fc1]));
    const res = inferStorageType(idx);
    expect(res.values.every((v) => v === 'default')).toBe(true);
    expect(res.numUnknown).toBe(0);
    expect(res.dispatchModes).toEqual(['variable', 'variable', 'variable', 'fcompute', 'fcompute']);
  });

  it('a sparse input to a dense-only op falls back; __storage_type__ seeds it', () => {
    // An op without storage inference (relu has MXNet's zero-preserving rule, so not relu).
    const reg = new OpRegistry();
    reg.define({ name: 'dense_only', inferShape: () => false });
    const t = new TestGraph(reg);
    const idx = t.index(t.op('dense_only', 'r', {}, [t.v('x', { __storage_type__: '2' })]));
    const res = inferStorageType(idx);
    expect(res.values).toEqual(['csr', 'default']);
    expect(res.dispatchModes).toEqual(['variable', 'fallback']);
  });

  it('an op with its own storage inference dispatches fcomputeEx on sparse data', () => {
    const reg = new OpRegistry();
    reg.define({
      name: 'sparse_id',
      inferShape: (_a, ins, outs) => {
        outs[0] = ins[0];
        return ins[0] !== undefined;
      },
      inferStorageType: (_a, ins, outs) => {
        outs[0] = ins[0] as 'default' | 'row_sparse' | 'csr';
        return true;
      },
    });
    const t = new TestGraph(reg);
    const idx = t.index(t.op('sparse_id', 's', {}, [t.v('x')]));
    const res = inferStorageType(idx, byName(idx, { x: 'row_sparse' as const }));
    expect(res.values).toEqual(['row_sparse', 'row_sparse']);
    expect(res.dispatchModes).toEqual(['variable', 'fcomputeEx']);
  });

  it('a variable nobody reads keeps an unknown storage type', () => {
    const idx = g.index(g.v('lonely'));
    const res = inferStorageType(idx);
    expect(res.values).toEqual([undefined]);
    expect(res.numUnknown).toBe(1);
    expect(res.dispatchModes).toEqual(['variable']);
  });
});
