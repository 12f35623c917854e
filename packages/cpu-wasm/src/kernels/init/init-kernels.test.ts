/**
 * Init kernels beyond the golden data: the SIMD fill at every tail length and at unaligned
 * windows, `req` = add, unsupported dtypes, and the harness staying usable after failures.
 */
import { cpu, isMXNetError } from '@mx/base';
import { OpReq, type TBlob } from '@mx/ops';
import { describe, expect, it } from 'vitest';
import { createOpHarness } from '../../test-util/run-op.js';
import { fillBlob } from './fill.js';

function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a throw');
}

describe('init kernels', () => {
  const h = createOpHarness();
  const rt = h.backend.runtime;
  const alloc = h.backend.allocator(cpu());

  it('fills every length 0..100 exactly, for 1-, 4- and 8-byte dtypes', () => {
    for (const [dtype, value, expect1] of [
      ['int8', -7, -7],
      ['float32', 1.5, 1.5],
      ['float64', -2.25, -2.25],
      ['int64', 3, 3n],
      ['bool', 2, 1],
    ] as const) {
      for (let n = 0; n <= 100; n++) {
        const [o] = h.run('_full', [], { shape: [n], value, dtype });
        expect(o!.data.length).toBe(n);
        for (const v of Array.from(o!.data as ArrayLike<number | bigint>)) expect(v).toBe(expect1);
      }
    }
  });

  it('fills an unaligned window without touching its neighbours', () => {
    const ptr = alloc.alloc(256) as number;
    const all = new Float32Array(rt.memory.buffer, ptr, 64);
    all.fill(9);
    const blob: TBlob<number> = { ptr, byteOffset: 4 * 3, shape: [37], dtype: 'float32', size: 37 };
    fillBlob(rt, '_full', blob, OpReq.write, -1);
    const after = new Float32Array(rt.memory.buffer, ptr, 64);
    expect([...after.slice(0, 3)]).toEqual([9, 9, 9]);
    expect([...after.slice(3, 40)].every((v) => v === -1)).toBe(true);
    expect([...after.slice(40)].every((v) => v === 9)).toBe(true);
    alloc.free(ptr, 256);
  });

  it('honours req=add and leaves outputs alone for req=null', () => {
    const base = { shape: [4], dtype: 'float32' as const, data: [1, 2, 3, 4] };
    expect([...h.run('_ones', [], { shape: [4] }, { req: 'add', out: [base] })[0]!.data]).toEqual([
      2, 3, 4, 5,
    ]);
    expect([...h.run('_zeros', [], { shape: [4] }, { req: 'add', out: [base] })[0]!.data]).toEqual([
      1, 2, 3, 4,
    ]);
    const i64 = { shape: [2], dtype: 'int64' as const, data: [5n, -5n] };
    expect([
      ...h.run('_full', [], { shape: [2], value: 2, dtype: 'int64' }, { req: 'add', out: [i64] })[0]!.data,
    ]).toEqual([7n, -3n]);
    const eye = h.run(
      '_eye',
      [],
      { N: 2 },
      { req: 'add', out: [{ shape: [2, 2], dtype: 'float32', data: [1, 1, 1, 1] }] },
    );
    expect([...eye[0]!.data]).toEqual([2, 1, 1, 2]);
    const ar = h.run(
      '_arange',
      [],
      { start: 3 },
      { req: 'add', out: [{ shape: [3], dtype: 'float32', data: [10, 10, 10] }] },
    );
    expect([...ar[0]!.data]).toEqual([10, 11, 12]);
    const ln = h.run(
      '_linspace',
      [],
      { start: 0, stop: 1, num: 3 },
      { req: 'add', out: [{ shape: [3], dtype: 'float64', data: [1, 1, 1] }] },
    );
    expect([...ln[0]!.data]).toEqual([1, 1.5, 2]);
    const blob: TBlob<number> = {
      ptr: alloc.alloc(16) as number,
      byteOffset: 0,
      shape: [4],
      dtype: 'int32',
      size: 4,
    };
    new Int32Array(rt.memory.buffer, blob.ptr as number, 4).set([1, 2, 3, 4]);
    fillBlob(rt, '_zeros', blob, OpReq.null, 0);
    expect([...new Int32Array(rt.memory.buffer, blob.ptr as number, 4)]).toEqual([1, 2, 3, 4]);
    alloc.free(blob.ptr as number, 16);
  });

  it('rejects dtypes cpu-wasm does not compute in, naming op, dtype and device', () => {
    const e = thrown(() => h.run('_zeros', [], { shape: [2], dtype: 'float16' }));
    expect(isMXNetError(e)).toBe(true);
    expect(e.message).toContain('_zeros');
    expect(e.message).toContain('float16');
    expect(e.message).toContain('cpu-wasm');
    expect(thrown(() => h.run('_arange', [], { start: 3, dtype: 'bool' })).message).toContain('bool');
    expect(thrown(() => h.run('_eye', [], { N: 2, dtype: 'uint16' })).message).toContain('uint16');
    // and the harness still works
    expect([...h.run('_ones', [], { shape: [2], dtype: 'uint8' })[0]!.data]).toEqual([1, 1]);
  });

  it('arange with infer_range takes its length from the output', () => {
    const e = thrown(() => h.run('_arange', [], { start: 0, infer_range: true }));
    expect(e.message).toContain('shape inference incomplete');
    const op = h.registry.get('_arange');
    const attrs = op.parseParams({ start: 0, infer_range: true });
    const out: (readonly number[] | undefined)[] = [[5]];
    expect(op.inferShape(attrs, [], out)).toBe(true);
    expect(out[0]).toEqual([5]);
  });

  it('arange and linspace follow MXNet arithmetic for ints and repeats', () => {
    expect([...h.run('_arange', [], { start: 0.5, stop: 3, dtype: 'int32' })[0]!.data]).toEqual([0, 1, 2]);
    expect([...h.run('_arange', [], { start: 0, stop: 2, repeat: 3, dtype: 'int64' })[0]!.data]).toEqual([
      0n,
      0n,
      0n,
      1n,
      1n,
      1n,
    ]);
    expect([...h.run('_linspace', [], { start: -1, stop: 0, num: 3, dtype: 'int32' })[0]!.data]).toEqual([
      -1, -1, 0,
    ]);
  });
});
