/**
 * More of MXNet's data iterators: CSVIter (C++ `iter_csv.cc`, streaming files of any size),
 * LibSVMIter (`iter_libsvm.cc`: CSRNDArray batches),
 * PrefetchingIter and ResizeIter (python/mxnet/io/io.py). Re-exported by the package index.
 */
export { CSVIter, type CSVIterParams } from './csv-iter.js';
export type { CsvSource, CsvValueKind } from './csv-reader.js';
export { LibSVMIter, type LibSVMIterParams, type LibSVMSource } from './libsvm/index.js';
export { PrefetchingIter, type RenameMap } from './prefetching-iter.js';
export { ResizeIter } from './resize-iter.js';
