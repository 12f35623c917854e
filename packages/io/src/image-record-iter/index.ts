/** ImageRecordIter and ImageRecordUInt8Iter (MXNet's C++ image RecordIO iterators). */
export { ImageRecordIter, type ImageRecordIterParams, ImageRecordUInt8Iter } from './image-record-iter.js';
