/**
 * Storage-type inference of `dot`, `_backward_dot` and FullyConnected against MXNet's rules
 * (dot-inl.h `DotForwardInferStorageType` / `DotBackwardInferStorageType` on CPU, fully_connected.cc
 * `FCStorageType` / `BackwardFCStorageType`), case by case as MXNet's branches read, including
 * `forward_stype` and the fallback's output storage type.
 */
import { describe, expect, it } from 'vitest';
import { createOpRegistry } from '../../index.js';
import type { StorageType } from '../../op-def.js';

const registry = createOpRegistry();

function infer(op: string, params: Record<string, unknown>, ins: StorageType[], nOut: number): StorageType[] {
  const o = registry.get(op);
  const out: StorageType[] = new Array(nOut).fill(undefined);
  expect(o.inferStorageType(o.parseParams(params), [...ins], out)).toBe(true);
  return out;
}

const fwd = (lhs: StorageType, rhs: StorageType, params: Record<string, unknown> = {}) =>
  infer('dot', params, [lhs, rhs], 1)[0];

describe('dot storage inference (MXNet, CPU)', () => {
  it('csr · dense/row_sparse → default; transposes of the csr → row_sparse', () => {
    expect(fwd('csr', 'default')).toBe('default');
    expect(fwd('csr', 'row_sparse')).toBe('default');
    expect(fwd('csr', 'default', { transpose_a: true })).toBe('row_sparse');
    expect(fwd('csr', 'row_sparse', { transpose_a: true })).toBe('row_sparse');
    expect(fwd('csr', 'default', { transpose_a: true, forward_stype: 'default' })).toBe('default');
  });

  it('dense · csr → csr; dense · csrᵀ only to default when asked, else the fallback to csr', () => {
    expect(fwd('default', 'csr')).toBe('csr');
    expect(fwd('default', 'csr', { forward_stype: 'default' })).toBe('default');
    expect(fwd('default', 'csr', { transpose_b: true, forward_stype: 'default' })).toBe('default');
    expect(fwd('default', 'csr', { transpose_b: true })).toBe('csr');
  });

  it('other combinations fall back to dense computation, the output in forward_stype', () => {
    expect(fwd('default', 'default')).toBe('default');
    expect(fwd('default', 'default', { forward_stype: 'csr' })).toBe('csr');
    expect(fwd('csr', 'default', { forward_stype: 'csr' })).toBe('csr');
    expect(fwd('csr', 'default', { transpose_b: true })).toBe('default');
    expect(fwd('csr', 'csr')).toBe('default');
    expect(fwd('row_sparse', 'default')).toBe('default');
    expect(fwd('row_sparse', 'default', { forward_stype: 'row_sparse' })).toBe('row_sparse');
    expect(fwd('default', 'csr', { transpose_a: true })).toBe('default');
  });

  it('waits for unknown input types, and only forward_stype makes dense inputs sparse', () => {
    const o = registry.get('dot');
    expect(o.inferStorageType(o.parseParams({}), [undefined as unknown as StorageType, 'csr'], [])).toBe(
      false,
    );
    expect(o.sparseFromDense(o.parseParams({}))).toBe(false);
    expect(o.sparseFromDense(o.parseParams({ forward_stype: 'default' }))).toBe(false);
    expect(o.sparseFromDense(o.parseParams({ forward_stype: 'csr' }))).toBe(true);
    expect(o.sparseFromDense(o.parseParams({ forward_stype: 'row_sparse' }))).toBe(true);
  });

  it('fails, as MXNet’s storage_type_assign does, when a preset output type differs from the target', () => {
    const o = registry.get('dot');
    const out: StorageType[] = ['default'];
    expect(o.inferStorageType(o.parseParams({ transpose_a: true }), ['csr', 'default'], out)).toBe(false);
    expect(out).toEqual(['default']);
    const ok: StorageType[] = ['row_sparse'];
    expect(o.inferStorageType(o.parseParams({ transpose_a: true }), ['csr', 'default'], ok)).toBe(true);
  });
});

describe('_backward_dot storage inference', () => {
  const bwd = (og: StorageType, l: StorageType, r: StorageType, params: Record<string, unknown> = {}) =>
    infer('_backward_dot', params, [og, l, r], 2);
  it('a csr lhs gives a row_sparse rhs gradient without transposes, default otherwise', () => {
    expect(bwd('default', 'csr', 'default')).toEqual(['default', 'row_sparse']);
    expect(bwd('row_sparse', 'csr', 'default')).toEqual(['default', 'row_sparse']);
    expect(bwd('default', 'csr', 'default', { transpose_a: true })).toEqual(['default', 'default']);
    expect(bwd('default', 'csr', 'default', { transpose_b: true })).toEqual(['default', 'default']);
  });
  it('a csr rhs and every other case: default gradients', () => {
    expect(bwd('default', 'default', 'csr')).toEqual(['default', 'default']);
    expect(bwd('default', 'default', 'default')).toEqual(['default', 'default']);
    expect(bwd('row_sparse', 'default', 'default')).toEqual(['default', 'default']);
    expect(bwd('default', 'row_sparse', 'csr')).toEqual(['default', 'default']);
  });
});

describe('FullyConnected storage inference', () => {
  it('the output and every gradient are dense, csr data included', () => {
    expect(infer('FullyConnected', { num_hidden: 3 }, ['csr', 'default', 'default'], 1)).toEqual(['default']);
    expect(infer('FullyConnected', { num_hidden: 3, no_bias: true }, ['default', 'row_sparse'], 1)).toEqual([
      'default',
    ]);
    expect(infer('_backward_FullyConnected', { num_hidden: 3 }, ['default', 'csr', 'default'], 3)).toEqual([
      'default',
      'default',
      'default',
    ]);
    expect(
      registry
        .get('FullyConnected')
        .sparseFromDense(registry.get('FullyConnected').parseParams({ num_hidden: 3 })),
    ).toBe(false);
  });
});
