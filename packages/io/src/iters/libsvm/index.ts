/**
 * The LibSVM reading half of MXNet's LibSVMIter: host CSR batches (LibSVMReader), the line grammar
 * and dmlc-core's part splitting. Not re-exported by the package index yet: LibSVMIter (issue 15)
 * will wrap LibSVMReader once @mx/ndarray has CSRNDArray.
 */
export { dmlcFloat } from './dmlc-float.js';
export { LibSVMLineParser, type LineLocator } from './line.js';
export { type HostCsr, type HostCsrBatch, LibSVMReader, type LibSVMReaderParams } from './reader.js';
export { type LibSVMSource, LineStream, partRange } from './source.js';
