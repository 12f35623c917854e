/**
 * LibSVMIter: MXNet's sparse LibSVM iterator (src/io/iter_libsvm.cc under SparseBatchLoader), a
 * DataIter whose data batches are CSRNDArrays of (batch_size, data_shape[0]) and whose labels are
 * a dense (batch_size,) array, or CSRNDArrays of (batch_size, label_shape[0]) read from
 * `label_libsvm`. Reading, parsing, parts and MXNet's `round_batch` wrap are the LibSVMReader's
 * (reader.ts, checked against dmlc-core); this class only uploads each host batch into arrays on
 * `ctx` — new arrays each batch, owned by the caller — and answers the DataIter protocol.
 *
 * Bad input is the reader's MXNetError on `next()` (file, line, what to change); the iterator
 * refuses to go on until `reset()`, which reads from the first row again.
 */
import { type Context, MXNetError } from '@mx/base';
import type { NDArray, Nd } from '@mx/ndarray';
import { DataDesc, DataIter } from '../../data-iter.js';
import { type NdLike, ndOf } from '../../runtime-of.js';
import { type HostCsr, type HostCsrBatch, LibSVMReader, type LibSVMReaderParams } from './reader.js';

/** MXNet's LibSVMIter parameters, plus the device and names of the batches. */
export interface LibSVMIterParams extends LibSVMReaderParams {
  /** Accepted for compatibility (MXNet's prefetch depth); batches are made on demand. Default 4. */
  readonly prefetch_buffer?: number;
  /** Device of the batches. Default: the runtime's default device. */
  readonly ctx?: Context;
  /** Name in `provideData` (MXDataIter's `data_name`). Default 'data'. */
  readonly data_name?: string;
  /** Name in `provideLabel` (MXDataIter's `label_name`). Default 'softmax_label'. */
  readonly label_name?: string;
}

const OP = 'LibSVMIter';

export class LibSVMIter extends DataIter {
  readonly ctx: Context;
  readonly #nd: Nd;
  readonly #reader: LibSVMReader;
  readonly #dataName: string;
  readonly #labelName: string;
  #batch: HostCsrBatch | undefined;

  constructor(runtime: NdLike, params: LibSVMIterParams) {
    const reader = new LibSVMReader(params);
    super(reader.batchSize);
    const prefetch = params.prefetch_buffer ?? 4;
    if (!Number.isSafeInteger(prefetch) || prefetch < 1) {
      reader.close();
      throw new MXNetError(`prefetch_buffer must be a positive integer, got ${String(prefetch)}`, { op: OP });
    }
    this.#reader = reader;
    this.#nd = ndOf(runtime);
    this.ctx = params.ctx ?? this.#nd.runtime.defaultContext;
    this.#dataName = params.data_name ?? 'data';
    this.#labelName = params.label_name ?? 'softmax_label';
  }

  /** (batch_size, data_shape[0]) float32, CSR storage. */
  get provideData(): DataDesc[] {
    return [new DataDesc(this.#dataName, [this.batchSize, ...this.#reader.dataShape], 'float32')];
  }

  /** (batch_size,) dense, or (batch_size, label_shape[0]) CSR with `label_libsvm`. */
  get provideLabel(): DataDesc[] {
    const shape = this.#reader.labelIsCsr ? [this.batchSize, ...this.#reader.labelShape] : [this.batchSize];
    return [new DataDesc(this.#labelName, shape, 'float32')];
  }

  /** Start a new epoch (after a wrapped last batch, MXNet goes on after the wrapped rows). */
  reset(): void {
    this.checkLive('reset');
    this.#batch = undefined;
    this.#reader.reset();
  }

  iterNext(): boolean {
    this.checkLive('iterNext');
    this.#batch = undefined;
    this.#batch = this.#reader.next();
    return this.#batch !== undefined;
  }

  /** The batch's rows as a CSRNDArray (MXNet: `data[0].stype == 'csr'`). */
  getData(): NDArray[] {
    return [this.#csr(this.#current('getData'))];
  }

  getLabel(): NDArray[] {
    const label = this.#current('getLabel').label;
    if (label instanceof Float32Array)
      return [this.#nd.array(label, { shape: [this.batchSize], ctx: this.ctx })];
    return [this.#csr(label)];
  }

  getPad(): number {
    return this.#current('getPad').pad;
  }

  /** Row numbers (since the last rewind) of the examples of the current batch. */
  override getIndex(): readonly number[] {
    return [...this.#current('getIndex').index];
  }

  override dispose(): void {
    if (this.isDisposed) return;
    this.#reader.close();
    super.dispose();
  }

  #csr(m: HostCsr): NDArray {
    return this.#nd.sparse.csrMatrix([m.data, m.indices, m.indptr], { shape: m.shape, ctx: this.ctx });
  }

  #current(op: string): HostCsrBatch {
    this.checkLive(op);
    if (this.#batch === undefined) {
      throw new MXNetError('there is no current batch', {
        op: `${OP}.${op}`,
        hint: 'call iterNext() or next() first',
      });
    }
    return this.#batch;
  }
}
