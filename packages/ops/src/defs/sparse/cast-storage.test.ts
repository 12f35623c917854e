/** cast_storage's definition: MXNet's param, shape/type identity, storage inference and gradient. */
import { isMXNetError } from '@mx/base';
import { describe, expect, it } from 'vitest';
import { createOpRegistry } from '../../index.js';
import type { StorageType } from '../../op-def.js';

const registry = createOpRegistry();
const op = registry.get('cast_storage');

function stypeOf(from: StorageType, to: string): StorageType | undefined {
  const out: StorageType[] = [undefined as unknown as StorageType];
  op.inferStorageType(op.parseParams({ stype: to }), [from], out);
  return out[0];
}

describe('cast_storage', () => {
  it('has MXNet’s name, alias and required stype enum', () => {
    expect(registry.get('_sparse_cast_storage')).toBe(op);
    expect(() => op.parseParams({})).toThrow(/stype/);
    expect(() => op.parseParams({ stype: 'coo' })).toThrow(
      /valid values are: \{'default', 'row_sparse', 'csr'\}/,
    );
    expect(op.parseParams({ stype: 'csr' })).toEqual({ stype: 'csr' });
  });

  it('keeps shape and dtype; csr needs 2-D and row_sparse an axis', () => {
    const out: (number[] | undefined)[] = [undefined];
    expect(op.inferShape(op.parseParams({ stype: 'row_sparse' }), [[4, 2, 3]], out)).toBe(true);
    expect(out[0]).toEqual([4, 2, 3]);
    expect(() => op.inferShape(op.parseParams({ stype: 'csr' }), [[4, 2, 3]], [undefined])).toThrow(
      /csr needs a 2-D shape/,
    );
    expect(() => op.inferShape(op.parseParams({ stype: 'row_sparse' }), [[]], [undefined])).toThrow(
      /at least one axis/,
    );
    const types: ('float64' | undefined)[] = [undefined];
    expect(op.inferType(op.parseParams({ stype: 'csr' }), ['float64'], types)).toBe(true);
    expect(types[0]).toBe('float64');
  });

  it('infers MXNet’s storage types and refuses csr ↔ row_sparse', () => {
    expect(stypeOf('default', 'csr')).toBe('csr');
    expect(stypeOf('default', 'row_sparse')).toBe('row_sparse');
    expect(stypeOf('csr', 'default')).toBe('default');
    expect(stypeOf('row_sparse', 'row_sparse')).toBe('row_sparse');
    expect(stypeOf('default', 'default')).toBe('default');
    let err: unknown;
    try {
      stypeOf('csr', 'row_sparse');
    } catch (e) {
      err = e;
    }
    expect(isMXNetError(err) && /from csr to row_sparse is not supported/.test((err as Error).message)).toBe(
      true,
    );
  });

  it('has MXNet’s gradient: _copy of the head gradient', () => {
    const spec = registry.gradient(op);
    expect(spec).toBeDefined();
    const calls: string[] = [];
    const g = {
      op1: (name: string, inputs: unknown[]) => {
        calls.push(`${name}(${inputs.join(',')})`);
        return 'gx';
      },
      ograd: (i: number) => `og${i}`,
    };
    const build = (spec as { build: (g: unknown, a: unknown) => unknown[] }).build;
    expect(build(g, op.parseParams({ stype: 'csr' }))).toEqual(['gx']);
    expect(calls).toEqual(['_copy(og0)']);
  });
});
