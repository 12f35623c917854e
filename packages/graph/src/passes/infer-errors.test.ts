/**
 * Error reports of the inference passes: every contradiction names both nodes (the entry's
 * producer, or whoever established its value, and the node that disagrees), both values, the
 * failing op's parameters and inputs, and a hint; the graph is left as it was.
 */
import { isMXNetError } from '@mx/base';
import { createOpRegistry, OpRegistry } from '@mx/ops';
import { describe, expect, it } from 'vitest';
import { entry } from '../node.js';
import { GraphInferenceError, inferShape, inferStorageType, inferType } from './infer.js';
import { byName, TestGraph } from './infer-test-graphs.js';

const g = new TestGraph(createOpRegistry());

function caught(f: () => unknown): GraphInferenceError {
  try {
    f();
  } catch (e) {
    expect(isMXNetError(e)).toBe(true);
    expect(e).toBeInstanceOf(GraphInferenceError);
    return e as GraphInferenceError;
  }
  throw new Error('expected an error');
}

describe('shape contradictions', () => {
  it('two op nodes disagree: names the consumer and the producer with both shapes', () => {
    const x = g.v('x');
    const fa = g.op('FullyConnected', 'fa', { num_hidden: '10' }, [x, g.v('fa_weight'), g.v('fa_bias')]);
    const fb = g.op('FullyConnected', 'fb', { num_hidden: '20' }, [x, g.v('fb_weight'), g.v('fb_bias')]);
    const idx = g.index(g.op('elemwise_add', 'sum', {}, [fa, fb]));
    const err = caught(() => inferShape(idx, byName(idx, { x: [4, 7] })));
    expect(err.message).toContain('node `sum` (elemwise_add) needs shape (4, 20)');
    expect(err.message).toContain('output 0 of node `fa` (FullyConnected) has shape (4, 10)');
    expect(err.message).toContain('lhs = (4, 10) from output 0 of node `fa` (FullyConnected)');
    expect(err.message).toContain('rhs = (4, 20) from output 0 of node `fb` (FullyConnected)');
    expect(err.message).toContain('elemwise_add reported: Incompatible attr');
    expect(err.hint).toBe('check the parameters of node `fa` (FullyConnected) and node `sum` (elemwise_add)');
    expect(err.nodeName).toBe('sum');
    expect(err.conflict?.producer.name).toBe('fa');
    expect(err.conflict?.held).toBe('(4, 10)');
    expect(err.conflict?.wanted).toBe('(4, 20)');
    expect(err.shapes).toEqual([
      [4, 10],
      [4, 20],
    ]);
  });

  it('a value pinned on an op output that the op contradicts: "its own output", pinned', () => {
    const fc1 = g.op('FullyConnected', 'fc', { num_hidden: '10' }, [g.v('data'), g.v('w'), g.v('b')]);
    const idx = g.index(fc1);
    const err = caught(() =>
      inferShape(idx, {
        ...byName(idx, { data: [4, 7] }),
        entries: new Map([[idx.entryOf(entry(fc1)), [4, 5]]]),
      }),
    );
    expect(err.message).toContain('node `fc` (FullyConnected) needs shape (4, 10) for its output 0 (output)');
    expect(err.message).toContain('its own output has shape (4, 5) (given)');
    expect(err.hint).toContain('check the shape pinned for output 0 of node `fc` (FullyConnected)');
  });

  it('a value a later node established, contradicted by an earlier one: names both', () => {
    // sum = fc(x) + b: b fixes fc's output in the forward sweep; x, known only through a pin on
    // `x2` = relu(x) that the backward sweep carries over, then contradicts it.
    const x = g.v('x');
    const fc1 = g.op('FullyConnected', 'fc', { num_hidden: '10' }, [x, g.v('w'), g.v('bias')]);
    const sum = g.op('elemwise_add', 'sum', {}, [fc1, g.v('b', { __shape__: '(4, 5)' })]);
    const x2 = g.op('relu', 'x2', {}, [x]);
    const idx = g.index(sum, x2);
    const err = caught(() => inferShape(idx, { entries: new Map([[idx.entryOf(entry(x2)), [4, 7]]]) }));
    expect(err.message).toContain('node `fc` (FullyConnected) needs shape (4, 10) for its output 0');
    expect(err.message).toContain('its own output has shape (4, 5) (inferred by node `sum` (elemwise_add))');
    expect(err.hint).toContain('node `sum` (elemwise_add) and node `fc` (FullyConnected) disagree');
    expect(err.conflict?.establishedBy?.name).toBe('sum');
  });

  it('an op that fails for another reason is reported with its own message and every input', () => {
    const fc1 = g.op('FullyConnected', 'fc', { num_hidden: '10' }, [g.v('data'), g.v('w'), g.v('b')]);
    const idx = g.index(fc1);
    const err = caught(() => inferShape(idx, byName(idx, { data: [] })));
    expect(err.message).toContain('shape inference failed at node `fc` (FullyConnected)');
    expect(err.message).toContain('needs data with at least one axis');
    expect(err.message).toContain('data = () from variable `data`; weight = unknown from variable `w`');
    expect(err.message).toContain('params: num_hidden=10');
    expect(err.hint).toBe('reshape the input to (batch, features)');
    expect(err.conflict).toBeUndefined();
  });

  it('an op that overwrites a known slot instead of checking it is caught on write-back', () => {
    const reg = new OpRegistry();
    reg.define({
      name: 'stubborn',
      inferShape: (_a, _ins, outs) => {
        outs[0] = [3];
        return true;
      },
    });
    const t = new TestGraph(reg);
    const s = t.op('stubborn', 's', {}, [t.v('x')]);
    const idx = t.index(s);
    const err = caught(() => inferShape(idx, { entries: new Map([[idx.entryOf(entry(s)), [4]]]) }));
    expect(err.message).toContain('node `s` (stubborn) needs shape (3,) for its output 0');
    expect(err.message).toContain('has shape (4,) (given)');
  });

  it('a backward node contradicting its forward node names both', () => {
    const data = g.v('data');
    const w = g.v('w');
    const fc1 = g.op('FullyConnected', 'fc', { num_hidden: '11' }, [data, w, g.v('b')]);
    const og = g.v('og');
    const bwd = g.op(
      '_backward_FullyConnected',
      'fc_bwd',
      { num_hidden: '11' },
      [og, g.v('data2'), w],
      [fc1],
    );
    const idx = g.index(entry(bwd, 0), entry(fc1));
    // data2 is unknown, so the backward op cannot infer itself; the fallback copies og from fc's
    // output and finds the data gradient pinned to a shape that is not data's.
    const err = caught(() =>
      inferShape(idx, {
        ...byName(idx, { data: [7, 100] }),
        entries: new Map([[idx.entryId(idx.nodeId(bwd), 0), [7, 99]]]),
      }),
    );
    expect(err.message).toContain('backward node `fc_bwd` (_backward_FullyConnected) has shape (7, 99)');
    expect(err.message).toContain(
      'input 0 (data) of its forward node `fc` (FullyConnected), whose shape is (7, 100)',
    );
  });

  it('a failed inference leaves the graph untouched', () => {
    const a = g.v('a', { __shape__: '(2, 3)' });
    const c = g.op('elemwise_add', 'c', {}, [a, g.v('b', { __shape__: '(3, 2)' })]);
    const idx = g.index(c);
    const err = caught(() => inferShape(idx));
    expect(err.message).toContain('node `c` (elemwise_add) needs shape (3, 2) for its input 0 (lhs)');
    expect(err.message).toContain('the variable `a` has shape (2, 3) (given)');
    expect(err.hint).toContain('check the shape given for variable `a`');
    expect(a.attrs).toEqual({ __shape__: '(2, 3)' });
    expect(c.attrs).toEqual({});
  });
});

describe('dtype and storage contradictions', () => {
  it('float16 data with a float32 weight names FullyConnected and the variable', () => {
    const fc1 = g.op('FullyConnected', 'fc', { num_hidden: '10' }, [
      g.v('data'),
      g.v('fc_weight'),
      g.v('fc_bias'),
    ]);
    const idx = g.index(fc1);
    const err = caught(() =>
      inferType(idx, byName(idx, { data: 'float16' as const, fc_weight: 'float32' as const })),
    );
    expect(err.message).toContain('node `fc` (FullyConnected) needs dtype float32 for its input 0 (data)');
    expect(err.message).toContain('the variable `data` has dtype float16 (given)');
    expect(err.message).toContain('weight = float32 from variable `fc_weight`');
    expect(err.hint).toContain('check the dtype given for variable `data`');
    expect(err.dtypes).toEqual(['float16', 'float32', 'unknown']);
  });

  it('a pinned storage type that contradicts dense inference names the op', () => {
    const reg = new OpRegistry();
    reg.define({ name: 'no_storage_inference', inferShape: () => false });
    const t = new TestGraph(reg);
    const r = t.op('no_storage_inference', 'r', {}, [t.v('x')]);
    const idx = t.index(r);
    // An op without storage inference offered a csr output: the pinned value stays and the op falls back.
    const res = inferStorageType(idx, { entries: new Map([[idx.entryOf(entry(r)), 'csr' as const]]) });
    expect(res.values).toEqual(['default', 'csr']);
    expect(res.dispatchModes).toEqual(['variable', 'fallback']);
    // An op with its own inference that insists on dense output contradicts the pin.
    reg.define({
      name: 'dense_only',
      inferShape: () => false,
      inferStorageType: (_a, _i, outs) => {
        outs[0] = 'default';
        return true;
      },
    });
    const d = t.op('dense_only', 'd', {}, [t.v('x')]);
    const idx2 = t.index(d);
    const err = caught(() =>
      inferStorageType(idx2, { entries: new Map([[idx2.entryOf(entry(d)), 'csr' as const]]) }),
    );
    expect(err.message).toContain('node `d` (dense_only) needs storage type default for its output 0');
    expect(err.attribute).toBe('storage type');
  });
});
