/**
 * Symbol JSON (nnvm `saveload_json.cc` + MXNet's `legacy_json_util.cc`): `loadJSON` reads every
 * version MXNet wrote (0.8 through 2.0) and `saveJSON` writes what MXNet 1.x writes, byte for byte.
 * The reader, the upgraders and the writer live in their own modules; this one is the surface.
 */
export { loadJSON } from './load.js';
export { saveJSON } from './save.js';
export {
  DEFAULT_FILE_VERSION,
  type LoadedGraph,
  type LoadJSONOptions,
  MXNET_JSON_VERSION,
  NEWEST_KNOWN_VERSION,
  type SaveJSONOptions,
} from './types.js';
