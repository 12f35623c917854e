import { describe, expect, it } from 'vitest';
import { isMXNetError, MXNetError } from './error.js';

describe('MXNetError', () => {
  it('formats op, params, shapes, dtypes, device and hint into the message', () => {
    const e = new MXNetError('shape mismatch', {
      op: 'FullyConnected',
      params: { num_hidden: 10, flatten: true },
      shapes: [[2, 3], [10, 4], [5]],
      dtypes: ['float32', 'float32'],
      device: 'cpu(0)',
      hint: 'make weight (10, 3)',
    });
    expect(e.message).toBe(
      [
        'FullyConnected: shape mismatch',
        '  params: num_hidden=10, flatten=true',
        '  input shapes: [(2, 3), (10, 4), (5,)]',
        '  input dtypes: [float32, float32]',
        '  device: cpu(0)',
        '  hint: make weight (10, 3)',
      ].join('\n'),
    );
    expect(e.name).toBe('MXNetError');
    expect(e.reason).toBe('shape mismatch');
    expect(e.op).toBe('FullyConnected');
    expect(e.shapes).toEqual([[2, 3], [10, 4], [5]]);
    expect(e).toBeInstanceOf(Error);
  });

  it('keeps a cause and is recognised across copies by name', () => {
    const cause = new RangeError('inner');
    const e = new MXNetError('outer', { cause });
    expect(e.cause).toBe(cause);
    expect(isMXNetError(e)).toBe(true);
    const lookalike = Object.assign(new Error('x'), { name: 'MXNetError' });
    expect(isMXNetError(lookalike)).toBe(true);
    expect(isMXNetError(new Error('x'))).toBe(false);
    expect(new MXNetError('plain').message).toBe('plain');
  });
});
