/**
 * RecordIO (`mx.recordio`): dmlc's record framing, byte-exact with dmlc-core's writer and its part
 * splitting, MXNet's sequential and indexed readers/writers, the `.idx` index and the image-record
 * header. Sync in Node and over bytes (like MXNet); async over Blobs/Files for browsers.
 */
export { type RecordIOBlobInput, RecordIOBlobReader, type RecordIOBlobReaderOptions } from './blob-reader.js';
export {
  decodeFlag,
  decodeLength,
  encodeLRec,
  RECORDIO_MAGIC,
  RECORDIO_MAX_LENGTH,
} from './format.js';
export {
  formatIndexLine,
  parseRecordIOIndex,
  type RecordIOIndex,
  type RecordIOKey,
  type RecordIOKeyType,
} from './idx.js';
export { MXIndexedRecordIO, type MXIndexedRecordIOOptions, type RecordIOIndexUri } from './indexed.js';
export { IR_HEADER_SIZE, IRHeader, type IRHeaderInit, pack, unpack } from './irheader.js';
export type { RecordReaderOptions } from './reader.js';
export { MXRecordIO, type MXRecordIOOptions, type RecordIOFlag, type RecordIOUri } from './recordio.js';
export { InMemoryFile } from './source.js';
export { indexedPartition } from './window.js';
