/**
 * LibSVMIter on MXNet's own documentation example (data.t and label.t of src/io/iter_libsvm.cc,
 * committed as __fixtures__/libsvm/mxnet-doc-*.libsvm): data batches are CSRNDArrays whose parts
 * and dense values are the ones that documentation prints, labels dense or CSR (label_libsvm),
 * the last batch wrapped with MXNet's pad; provideData/provideLabel; the DataIter protocol
 * (`for … of`, reset); a bad file is an MXNetError on next() and reset() recovers. Every test runs
 * under nd.leakCheck: the caller's batches are freed by disposing them.
 */
import { fileURLToPath } from 'node:url';
import { isMXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { type CSRNDArray, createRuntime, type NDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import { LibSVMIter } from './libsvm-iter.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64, workers: 0 })] });
const { nd } = rt;
afterAll(() => rt.dispose());
const FIXTURES = fileURLToPath(new URL('../../__fixtures__/libsvm/', import.meta.url));
const DATA = `${FIXTURES}mxnet-doc-data.libsvm`;
const LABEL = `${FIXTURES}mxnet-doc-label.libsvm`;
const f = Math.fround;
const R = [
  [f(0.5), 0, f(1.2)],
  [0, 0, 0],
  [f(0.6), f(2.4), f(1.2)],
  [0, 0, f(-1.2)],
];
const dense = (a: NDArray) => a.arraySync() as number[][];

describe('LibSVMIter', () => {
  it("gives CSR batches of MXNet's documentation example, dense labels, and pad on the wrapped batch", () =>
    nd.leakCheck(() => {
      const it = new LibSVMIter(rt, { data_libsvm: DATA, data_shape: [3], batch_size: 3 });
      expect(it.provideData.map((d) => [d.name, d.shape])).toEqual([['data', [3, 3]]]);
      expect(it.provideLabel.map((d) => [d.name, d.shape])).toEqual([['softmax_label', [3]]]);
      const batches = [...it];
      expect(batches.length).toBe(2);
      const [b1, b2] = batches as [(typeof batches)[0], (typeof batches)[0]];
      const d1 = b1.data[0] as CSRNDArray;
      expect(d1.stype).toBe('csr');
      expect(d1.shape).toEqual([3, 3]);
      const parts = d1.partsSync();
      expect(Array.from(parts.indptr as BigInt64Array)).toEqual([0n, 2n, 2n, 5n]);
      expect(Array.from(parts.indices as BigInt64Array)).toEqual([0n, 2n, 0n, 1n, 2n]);
      expect(Array.from(parts.data as Float32Array)).toEqual([0.5, 1.2, 0.6, 2.4, 1.2].map(f));
      expect(dense(d1)).toEqual([R[0], R[1], R[2]]);
      expect(Array.from(b1.label[0]?.dataSync() as Float32Array)).toEqual([1, -2, -3]);
      expect(b1.pad).toBe(0);
      expect(dense(b2.data[0] as NDArray)).toEqual([R[3], R[0], R[1]]);
      expect(b2.pad).toBe(2);
      expect(b2.index).toEqual([3, 0, 1]);
      for (const b of batches) b.dispose();
      // MXNet: after a wrapped epoch the next one starts after the wrapped rows.
      it.reset();
      const e2 = it.next() as NonNullable<ReturnType<typeof it.next>>;
      expect(dense(e2.data[0] as NDArray)).toEqual([R[2], R[3], R[0]]);
      e2.dispose();
      it.dispose();
    }));

  it('label_libsvm gives CSR labels of label_shape columns', () =>
    nd.leakCheck(() => {
      const it = new LibSVMIter(rt, {
        data_libsvm: DATA,
        data_shape: [3],
        label_libsvm: LABEL,
        label_shape: [3],
        batch_size: 3,
      });
      expect(it.provideLabel.map((d) => d.shape)).toEqual([[3, 3]]);
      const b = it.next() as NonNullable<ReturnType<typeof it.next>>;
      expect(b.label[0]?.stype).toBe('csr');
      expect(dense(b.label[0] as NDArray)).toEqual([
        [0, 0, 0],
        [0.125, 0, 0],
        [0, 0, f(1.2)],
      ]);
      b.dispose();
      it.dispose();
    }));

  it('a bad line is an MXNetError on next(); reset() reads from the first row again', () =>
    nd.leakCheck(() => {
      const bytes = new TextEncoder().encode('1 0:0.5\n2 1:abc\n3 2:1\n');
      const it = new LibSVMIter(rt, { data_libsvm: bytes, data_shape: [3], batch_size: 2 });
      let err: unknown;
      try {
        it.next();
      } catch (e) {
        err = e;
      }
      expect(isMXNetError(err)).toBe(true);
      expect(String(err)).toMatch(/line 2/);
      expect(() => it.next()).toThrow(/stopped at an error/);
      it.reset();
      expect(() => it.next()).toThrow(/line 2/);
      it.dispose();
      expect(
        () => new LibSVMIter(rt, { data_libsvm: bytes, data_shape: [3], batch_size: 2, prefetch_buffer: 0 }),
      ).toThrow(/prefetch_buffer/);
    }));
});
