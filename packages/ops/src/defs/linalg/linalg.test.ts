/**
 * Linalg op definitions: MXNet names, aliases, parameters and defaults; shape inference for dot's
 * N-d transpose semantics, batch_dot and linalg_gemm2's row axis; partial inference; and the
 * MXNetErrors for mismatched operands (naming the op, both shapes and the transpose flags).
 */
import { isMXNetError, type Shape } from '@mx/base';
import { describe, expect, it } from 'vitest';
import { createOpRegistry } from '../../index.js';

const reg = createOpRegistry();

function infer(
  op: string,
  shapes: (Shape | undefined)[],
  params: Record<string, unknown> = {},
): Shape | undefined {
  const o = reg.get(op);
  const attrs = o.parseParams(params);
  const out: (Shape | undefined)[] = [undefined];
  o.inferShape(
    attrs,
    shapes.map((s) => (s ? [...s] : undefined)),
    out,
  );
  return out[0];
}

function error(fn: () => unknown): Error {
  try {
    fn();
  } catch (e) {
    expect(isMXNetError(e)).toBe(true);
    return e as Error;
  }
  throw new Error('expected an MXNetError');
}

describe('linalg definitions', () => {
  it('registers MXNet names, aliases, inputs and defaults', () => {
    expect(reg.get('linalg_gemm2').name).toBe('_linalg_gemm2');
    expect(reg.get('dot').listInputNames(reg.get('dot').parseParams({}))).toEqual(['lhs', 'rhs']);
    expect(reg.get('_linalg_gemm2').listInputNames(reg.get('_linalg_gemm2').parseParams({}))).toEqual([
      'A',
      'B',
    ]);
    expect(reg.get('dot').parseParams({})).toEqual({
      transpose_a: false,
      transpose_b: false,
      forward_stype: null,
    });
    expect(reg.get('batch_dot').parseParams({ transpose_b: 'True', forward_stype: 'default' })).toMatchObject(
      {
        transpose_b: true,
        forward_stype: 'default',
      },
    );
    expect(reg.get('_linalg_gemm2').parseParams({ alpha: '2.5', axis: '-3' })).toEqual({
      transpose_a: false,
      transpose_b: false,
      alpha: 2.5,
      axis: -3,
    });
    expect(() => reg.get('dot').parseParams({ forward_stype: 'dense' })).toThrow(/Invalid Input/);
  });

  it('infers dot shapes with MXNet N-d transpose semantics', () => {
    expect(infer('dot', [[3], [3]])).toEqual([1]);
    expect(
      infer('dot', [
        [2, 3],
        [3, 4],
      ]),
    ).toEqual([2, 4]);
    expect(
      infer('dot', [
        [2, 3, 4],
        [4, 5, 6],
      ]),
    ).toEqual([2, 3, 5, 6]);
    expect(infer('dot', [[3], [3, 4]])).toEqual([4]);
    expect(infer('dot', [[4, 3], [3]])).toEqual([4]);
    expect(
      infer(
        'dot',
        [
          [4, 2, 3],
          [4, 5],
        ],
        { transpose_a: true },
      ),
    ).toEqual([2, 3, 5]);
    expect(
      infer(
        'dot',
        [
          [6, 4],
          [2, 3, 4],
        ],
        { transpose_b: true },
      ),
    ).toEqual([6, 2, 3]);
    expect(
      infer('dot', [
        [2, 0],
        [3, 4],
      ]),
    ).toEqual([2, 4]);
    expect(infer('dot', [undefined, [3, 4]])).toBeUndefined();
  });

  it('infers batch_dot and gemm2 shapes', () => {
    expect(
      infer('batch_dot', [
        [2, 3, 4],
        [2, 4, 5],
      ]),
    ).toEqual([2, 3, 5]);
    expect(
      infer(
        'batch_dot',
        [
          [2, 7, 4, 3],
          [2, 7, 5, 4],
        ],
        { transpose_a: true, transpose_b: true },
      ),
    ).toEqual([2, 7, 3, 5]);
    expect(
      infer('_linalg_gemm2', [
        [3, 4],
        [4, 5],
      ]),
    ).toEqual([3, 5]);
    expect(
      infer(
        '_linalg_gemm2',
        [
          [2, 4, 3, 5],
          [2, 5, 3, 6],
        ],
        { axis: 1 },
      ),
    ).toEqual([2, 4, 3, 6]);
    expect(
      infer(
        '_linalg_gemm2',
        [
          [4, 3, 5],
          [5, 3, 2],
        ],
        { axis: 0, transpose_a: false },
      ),
    ).toEqual([4, 3, 2]);
  });

  it('fills unknown output dims and checks a given output shape', () => {
    const o = reg.get('dot');
    const out: (Shape | undefined)[] = [[-1, 4]];
    expect(
      o.inferShape(
        o.parseParams({}),
        [
          [2, 3],
          [3, 4],
        ],
        out,
      ),
    ).toBe(true);
    expect(out[0]).toEqual([2, 4]);
    expect(() =>
      o.inferShape(
        o.parseParams({}),
        [
          [2, 3],
          [3, 4],
        ],
        [[5, 4]],
      ),
    ).toThrow(/shape inconsistent/);
  });

  it('throws MXNetErrors that name the op, the shapes and the flags', () => {
    const e = error(() =>
      infer(
        'dot',
        [
          [2, 3],
          [4, 5],
        ],
        { transpose_b: false },
      ),
    );
    expect(e.message).toContain('dot shape error');
    expect(e.message).toContain('(2, 3) X (4, 5)');
    expect(e.message).toContain('transpose_a=false, transpose_b=false');
    expect(error(() => infer('dot', [[3], [3]], { transpose_a: true })).message).toContain(
      'Cannot transpose vectors',
    );
    expect(error(() => infer('dot', [[], [3]])).message).toContain('scalar tensor');
    expect(
      error(() =>
        infer('batch_dot', [
          [2, 3],
          [3, 2],
        ]),
      ).message,
    ).toContain('N >= 3');
    expect(
      error(() =>
        infer('batch_dot', [
          [2, 3, 4],
          [2, 3, 4],
        ]),
      ).message,
    ).toContain('batch_dot shape error');
    expect(
      error(() =>
        infer('_linalg_gemm2', [
          [2, 3],
          [2, 3],
        ]),
      ).message,
    ).toContain('Incompatible matrix dimensions');
    expect(
      error(() =>
        infer('_linalg_gemm2', [
          [2, 3, 4],
          [2, 4],
        ]),
      ).message,
    ).toContain('same ndim');
    expect(
      error(() =>
        infer(
          '_linalg_gemm2',
          [
            [2, 3],
            [3, 2],
          ],
          { axis: 1 },
        ),
      ).message,
    ).toContain('Invalid row axis');
  });
});
