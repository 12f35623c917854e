/**
 * InferStorageType and dispatch modes: storage types propagating through ops with and without
 * their own storage inference (MXNet's DefaultStorageType for the latter: fallback), seeds from
 * `__storage_type__` and given values, the backend's `computeEx` answer deciding fcomputeEx vs
 * fallback (and being asked only about non-dense nodes, with the node's storage types), and the
 * bad paths: an op refusing its storage types, a malformed attribute, a bad given value.
 *
 * The ops are defined here (MXNet's rules for an elementwise add on row_sparse, a dense-only op, a
 * cast) except `cast_storage`, whose registered definition is the model storage-inference op.
 */
import { isMXNetError } from '@mx/base';
import { createOpRegistry, OpRegistry, type ShapeSlots, type StorageType } from '@mx/ops';
import { describe, expect, it } from 'vitest';
import type { GraphNode } from '../node.js';
import { GraphInferenceError } from './infer-errors.js';
import { inferStorageType } from './infer-storage.js';
import { byName, idOf, TestGraph } from './infer-test-graphs.js';

const same = (_a: unknown, ins: ShapeSlots, outs: ShapeSlots) => {
  const s = ins[0] ?? outs[0];
  if (s === undefined) return false;
  outs[0] = s;
  return true;
};

/** `rsp_add`: MXNet's elemwise_add storage rule (rsp + rsp = rsp, else dense); `dense_op`: no storage inference. */
function testRegistry(): OpRegistry {
  const reg = new OpRegistry();
  reg.define({
    name: 'rsp_add',
    numInputs: 2,
    inferShape: same,
    inferStorageType: (_a, ins, outs) => {
      outs[0] = ins[0] === 'row_sparse' && ins[1] === 'row_sparse' ? 'row_sparse' : 'default';
      return true;
    },
  });
  reg.define({ name: 'dense_op', inferShape: same });
  // Like dot's backward (MXNet's type_assign): fills an output only if unset or already equal.
  reg.define({
    name: 'assign_rsp',
    inferShape: same,
    inferStorageType: (_a, _ins, outs) => {
      if (outs[0] !== undefined && outs[0] !== 'row_sparse') {
        outs[0] = 'default';
        return true;
      }
      outs[0] = 'row_sparse';
      return true;
    },
  });
  reg.define({
    name: 'two_out',
    numOutputs: 2,
    inferShape: same,
    inferStorageType: (_a, ins, outs) => {
      outs[0] = ins[0] as StorageType;
      outs[1] = 'default';
      return true;
    },
  });
  return reg;
}

const t = new TestGraph(testRegistry());
/** The full registry (for `cast_storage`) plus an op without storage inference. */
const real = new TestGraph(
  (() => {
    const reg = createOpRegistry();
    reg.define({ name: 'dense_op', inferShape: same });
    return reg;
  })(),
);

function caught(f: () => unknown): MXNetErrorLike {
  try {
    f();
  } catch (e) {
    expect(isMXNetError(e)).toBe(true);
    return e as MXNetErrorLike;
  }
  throw new Error('expected an MXNetError');
}
type MXNetErrorLike = Error & { hint?: string; op?: string };

/** Storage type and dispatch mode of the node named `name` (output `k`). */
function at(
  idx: ReturnType<TestGraph['index']>,
  res: ReturnType<typeof inferStorageType>,
  name: string,
  k = 0,
) {
  const nid = idOf(idx, name);
  return [res.values[idx.entryId(nid, k)], res.dispatchModes[nid]];
}

describe('storage types propagate', () => {
  it('through an op with storage inference, then into a dense-only op that falls back', () => {
    const x = t.v('x', { __storage_type__: '1' });
    const y = t.v('y', { __storage_type__: 'row_sparse' });
    const s = t.op('rsp_add', 's', {}, [x, y]);
    const d = t.op('dense_op', 'd', {}, [s]);
    const m = t.op('rsp_add', 'm', {}, [d, s]);
    const idx = t.index(m);
    const res = inferStorageType(idx);
    expect(res.numUnknown).toBe(0);
    expect(at(idx, res, 'x')).toEqual(['row_sparse', 'variable']);
    expect(at(idx, res, 's')).toEqual(['row_sparse', 'fcomputeEx']);
    // MXNet's DefaultStorageType: a sparse input to an op without storage inference → dense output, fallback.
    expect(at(idx, res, 'd')).toEqual(['default', 'fallback']);
    expect(at(idx, res, 'm')).toEqual(['default', 'fcomputeEx']);
  });

  it('an all-dense graph dispatches fcompute everywhere, and computeEx is never asked', () => {
    const idx = t.index(t.op('rsp_add', 's', {}, [t.v('x'), t.op('dense_op', 'd', {}, [t.v('y')])]));
    const res = inferStorageType(idx, {}, { computeEx: () => expect.unreachable() as never });
    expect(res.values.every((v) => v === 'default')).toBe(true);
    expect(res.dispatchModes.filter((m) => m !== 'variable')).toEqual(['fcompute', 'fcompute']);
  });

  it('given values win over __storage_type__ (the bound array decides, as in MXNet bind)', () => {
    const idx = t.index(t.op('rsp_add', 's', {}, [t.v('x', { __storage_type__: '2' }), t.v('y')]));
    const res = inferStorageType(idx, byName(idx, { x: 'row_sparse' as const, y: 'row_sparse' as const }));
    expect(at(idx, res, 'x')).toEqual(['row_sparse', 'variable']);
    expect(at(idx, res, 's')).toEqual(['row_sparse', 'fcomputeEx']);
    expect(inferStorageType(idx).values[idx.entryId(idOf(idx, 'x'))]).toBe('csr');
  });

  it('cast_storage (registered definition) makes sparse entries from dense ones and back', () => {
    const c = real.op('cast_storage', 'c', { stype: 'csr' }, [real.v('x')]);
    const e = real.op('dense_op', 'e', {}, [c]);
    const back = real.op('cast_storage', 'back', { stype: 'default' }, [c]);
    const idx = real.index(e, back);
    const res = inferStorageType(idx);
    expect(at(idx, res, 'x')).toEqual(['default', 'variable']);
    expect(at(idx, res, 'c')).toEqual(['csr', 'fcomputeEx']);
    expect(at(idx, res, 'e')).toEqual(['default', 'fallback']);
    expect(at(idx, res, 'back')).toEqual(['default', 'fcomputeEx']);
  });

  it('unknown outputs reach an op as unset (not dense), so a type_assign rule can fill them', () => {
    const idx = t.index(t.op('assign_rsp', 'a', {}, [t.v('x')]));
    const res = inferStorageType(idx);
    expect(at(idx, res, 'a')).toEqual(['row_sparse', 'fcomputeEx']);
  });

  it('every output of a multi-output node gets its own storage type', () => {
    const idx = t.index(t.op('two_out', 'o', {}, [t.v('x', { __storage_type__: '2' })]));
    const res = inferStorageType(idx);
    expect([at(idx, res, 'o', 0)[0], at(idx, res, 'o', 1)[0]]).toEqual(['csr', 'default']);
    expect(res.dispatchModes[idOf(idx, 'o')]).toBe('fcomputeEx');
  });

  it('unknown storage types: a reader takes them as dense; a variable nobody reads stays unknown', () => {
    const idx = t.index(t.op('dense_op', 'd', {}, [t.v('x', { __storage_type__: '-1' })]));
    const res = inferStorageType(idx);
    // DefaultStorageType fills unknown inputs with default (MXNet does the same).
    expect(at(idx, res, 'd')).toEqual(['default', 'fcompute']);
    const lonely = t.index(t.v('lonely', { __storage_type__: '-1' }));
    expect(inferStorageType(lonely).numUnknown).toBe(1);
  });
});

describe('the backend decides fcomputeEx vs fallback', () => {
  it('asks computeEx once per non-dense node with its storage types', () => {
    const x = t.v('x', { __storage_type__: '1' });
    const s = t.op('rsp_add', 's', {}, [x, x]);
    const d = t.op('dense_op', 'd', {}, [s]);
    const m = t.op('rsp_add', 'm', {}, [d, t.v('y')]);
    const idx = t.index(m);
    const asked: [string, readonly StorageType[], readonly StorageType[]][] = [];
    const res = inferStorageType(
      idx,
      {},
      {
        computeEx: (node: GraphNode, ins, outs) => {
          asked.push([node.name, [...ins], [...outs]]);
          return node.name === 'd';
        },
      },
    );
    expect(asked).toEqual([
      ['s', ['row_sparse', 'row_sparse'], ['row_sparse']],
      ['d', ['row_sparse'], ['default']],
    ]);
    // Refused by the backend → fallback even though the op infers sparse output; served → fcomputeEx.
    expect(at(idx, res, 's')).toEqual(['row_sparse', 'fallback']);
    expect(at(idx, res, 'd')).toEqual(['default', 'fcomputeEx']);
    expect(at(idx, res, 'm')).toEqual(['default', 'fcompute']);
  });
});

describe('bad storage types', () => {
  it("an op refusing its input's storage type is an error naming the node", () => {
    const c = real.op('cast_storage', 'to_rsp', { stype: 'row_sparse' }, [
      real.v('x', { __storage_type__: '2' }),
    ]);
    const err = caught(() => inferStorageType(real.index(c)));
    expect(err).toBeInstanceOf(GraphInferenceError);
    expect(err.message).toContain('node `to_rsp` (cast_storage)');
    expect(err.message).toContain('cast_storage from csr to row_sparse is not supported');
    expect(err.message).toContain('the variable `x` has storage type csr');
    expect(err.hint).toContain('check the storage type given for variable `x`');
  });

  it('a malformed __storage_type__ names the variable; a bad given value names it too', () => {
    const idx = t.index(t.op('dense_op', 'd', {}, [t.v('w', { __storage_type__: 'coo' })]));
    expect(caught(() => inferStorageType(idx)).message).toMatch(
      /variable `w` has an invalid __storage_type__ attribute "coo": not a storage type/,
    );
    const ok = t.index(t.op('dense_op', 'd', {}, [t.v('w')]));
    expect(caught(() => inferStorageType(ok, byName(ok, { w: 'sparse' as StorageType }))).message).toMatch(
      /storage type given for variable `w` is not a storage type: sparse/,
    );
  });
});
