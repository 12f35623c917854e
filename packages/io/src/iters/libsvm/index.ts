/**
 * MXNet's LibSVMIter (CSRNDArray batches) over its host half: LibSVMReader's CSR batches, the
 * line grammar and dmlc-core's part splitting. The package index re-exports LibSVMIter.
 */
export { dmlcFloat } from './dmlc-float.js';
export { LibSVMIter, type LibSVMIterParams } from './libsvm-iter.js';
export { LibSVMLineParser, type LineLocator } from './line.js';
export { type HostCsr, type HostCsrBatch, LibSVMReader, type LibSVMReaderParams } from './reader.js';
export { type LibSVMSource, LineStream, partRange } from './source.js';
