/**
 * im2rec (MXNet's tools/im2rec.py) and the image-record codecs: `.lst` lists from image folders,
 * `.rec` + `.idx` record files from lists, `packImg` / `unpackImg` (async: sharp encodes and
 * decodes), and `im2recMain`, the `mx-im2rec` command. Node only for files; nothing here imports
 * `node:fs` or sharp at load time.
 */
export {
  type Im2recArgs,
  type Im2recIO,
  Im2recUsageError,
  im2recMain,
  im2recUsage,
  parseIm2recArgs,
} from './cli.js';
export {
  DEFAULT_EXTS,
  formatLstLine,
  formatPyFloat,
  type ImageListing,
  type ListImagesOptions,
  type LstItem,
  listImages,
  type MakeListOptions,
  type MakeListResult,
  makeList,
  type ParsedLst,
  parseLst,
  readLst,
  splitList,
} from './lst.js';
export {
  findLists,
  headerOf,
  im2recTransform,
  type PackOptions,
  type PackResult,
  packList,
  packLists,
} from './pack.js';
export { decodeWithFlag, encodeImage, type ImgFmt, type ImreadFlag, packImg, unpackImg } from './pack-img.js';
