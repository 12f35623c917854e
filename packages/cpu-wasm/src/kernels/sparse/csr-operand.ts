/**
 * A CSR operand as the sparse dot kernels read it (the wasm module, dot-run.ts and dot-small.ts):
 * its shape, nnz, the addresses of its blocks and their index types. A file of its own so that
 * the drivers and the narrow path share it without importing each other.
 */
import type { IndexType } from './dot-module.js';

/** A CSR operand as the module sees it. */
export interface CsrOperand {
  readonly rows: number;
  readonly cols: number;
  readonly nnz: number;
  readonly data: number;
  readonly indptr: number;
  readonly indices: number;
  readonly dtype: 'float32' | 'float64';
  readonly indptrType: IndexType;
  readonly indicesType: IndexType;
}
