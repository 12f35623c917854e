/**
 * MXNet's wire encodings of the distributed store (src/kvstore/kvstore_dist.h and
 * kvstore_dist_server.h), kept apart from the store so the worker, the server and the golden tests
 * (tools/golden/kvstore/dist.py) share one transcription:
 *
 * - the command ids of SimpleApp requests (`CommandType`) and the Cantor pairing of the request type
 *   and the mshadow dtype flag into the `cmd` of every data request (`GetCommandType`);
 * - how a key's bytes become ps-lite keys and lengths (`PSKV`): `EncodeDefaultKey` (one server for
 *   arrays under the big-array bound, every server otherwise) and `EncodeCompressedKey` (a meta key
 *   carrying the original size, then the compressed data; the pull side in original sizes) and
 *   `EncodeRowSparseKey` (a master key of length 0, then one key per row sent: key + row id);
 * - ps-lite's equal split of the uint64 key space among the servers, and `DecodeKey`.
 *
 * C++ integer semantics are reproduced: `key * 9973` is an `int` product (wraps at 32 bits; a key
 * whose product wraps negative would index a server MXNet does not have, so it is refused here), and
 * part sizes use C `round` (halves away from zero) of a double.
 */
import { DType, type DTypeName, type Env, MXNetError } from '@mx/base';
import { type CompressionType, compressedSize, compressionFactor } from '../compression/quantize.js';
import type { KeyRange } from '../pslite/api.js';

/** MXNet's `CommandType` (SimpleApp heads), in the order of the C++ enum. */
export const CommandType = {
  kController: 0,
  kSetMultiPrecision: 1,
  kStopServer: 2,
  kSyncMode: 3,
  kSetGradientCompression: 4,
  kSetProfilerParams: 5,
} as const;
export type CommandType = (typeof CommandType)[keyof typeof CommandType];

/** MXNet's `RequestType` of data requests. */
export const RequestType = { kDefaultPushPull: 0, kRowSparsePushPull: 1, kCompressedPushPull: 2 } as const;
export type RequestType = (typeof RequestType)[keyof typeof RequestType];

/** MXNet's default `MXNET_KVSTORE_BIGARRAY_BOUND`: arrays of this many elements or more are split. */
export const DEFAULT_BIGARRAY_BOUND = 1_000_000;

/** ps-lite's `kMaxKey` (uint64 max). */
export const MAX_KEY = (1n << 64n) - 1n;

/** MXNet `GetCommandType`: the Cantor pairing of a request type and a dtype flag. */
export function getCommandType(requestType: RequestType, dtypeFlag: number): number {
  const m = requestType;
  return ((m + dtypeFlag) * (m + dtypeFlag + 1)) / 2 + dtypeFlag;
}

/** MXNet `DepairDataHandleType`: the request type and dtype flag of a command. */
export function depairDataHandleType(cmd: number): { requestType: RequestType; dtypeFlag: number } {
  const w = Math.floor((Math.sqrt(8 * cmd + 1) - 1) / 2);
  const t = (w * w + w) / 2;
  const y = cmd - t;
  const x = w - y;
  if (!Number.isInteger(cmd) || cmd < 0 || x < 0 || y < 0 || x > 2) {
    throw new MXNetError(`request command ${cmd} is not a Cantor pair of a request type and a dtype`, {
      op: 'KVStoreDistServer.DataHandle',
      hint: 'the worker and server disagree on the wire format',
    });
  }
  return { requestType: x as RequestType, dtypeFlag: y };
}

/** The command of a data request for values of `dtype`. */
export function commandFor(requestType: RequestType, dtype: DTypeName): number {
  return getCommandType(requestType, DType[dtype].flag);
}

/** ps-lite's `Postoffice::GetServerKeyRanges`: server i owns [kMaxKey/S*i, kMaxKey/S*(i+1)). */
export function serverKeyRanges(numServers: number): KeyRange[] {
  const s = BigInt(numServers);
  return Array.from({ length: numServers }, (_, i) => ({
    begin: (MAX_KEY / s) * BigInt(i),
    end: (MAX_KEY / s) * BigInt(i + 1),
  }));
}

/** ps-lite keys and byte lengths of one key's value (MXNet `PSKV`); `size` is the total bytes. */
export interface PSKV {
  readonly keys: BigUint64Array;
  readonly lens: Int32Array;
  readonly size: number;
}

/** C `round` (halves away from zero) of a non-negative double. */
function cRound(x: number): number {
  return Math.floor(x + 0.5);
}

/** The server MXNet sends a small array of `key` to: `(key * 9973) % S` in C++ `int` arithmetic. */
export function serverOfKey(key: number, numServers: number): number {
  // `|| 0`: C++ has no -0 (a negative product divisible by S lands on server 0).
  const server = Math.imul(key, 9973) % numServers || 0;
  if (server < 0 || !Number.isInteger(key) || key < 0) {
    throw new MXNetError(
      `key ${key} cannot be placed on a server: MXNet's (key * 9973) % num_servers overflows a 32-bit int for it`,
      {
        op: 'KVStoreDist.EncodeKey',
        params: { key, numServers },
        hint: 'use integer keys below 215327 (or string keys, numbered from 0 in init order)',
      },
    );
  }
  return server;
}

function pskv(keys: bigint[], lens: number[]): PSKV {
  return {
    keys: BigUint64Array.from(keys),
    lens: Int32Array.from(lens),
    size: lens.reduce((a, b) => a + b, 0),
  };
}

/** MXNet `EncodeDefaultKey` for `n` elements of `numBytes` bytes each. */
export function encodeDefaultKey(
  key: number,
  n: number,
  numBytes: number,
  ranges: readonly KeyRange[],
  bigArrayBound: number,
): PSKV {
  const s = ranges.length;
  if (n < bigArrayBound) {
    const r = ranges[serverOfKey(key, s)] as KeyRange;
    return pskv([r.begin + BigInt(key)], [n * numBytes]);
  }
  const keys: bigint[] = [];
  const lens: number[] = [];
  for (let i = 0; i < s; i++) {
    const part = cRound((n / s) * (i + 1)) - cRound((n / s) * i);
    keys.push((ranges[i] as KeyRange).begin + BigInt(key));
    lens.push(part * numBytes);
  }
  return pskv(keys, lens);
}

/** MXNet `EncodeCompressedKey` for `n` float32 elements: the push (compressed) and pull pskv. */
export function encodeCompressedKey(
  key: number,
  n: number,
  type: CompressionType,
  ranges: readonly KeyRange[],
  bigArrayBound: number,
): { readonly push: PSKV; readonly pull: PSKV } {
  const s = ranges.length;
  const nb = 4;
  const compr = compressedSize(n, type);
  if (n < bigArrayBound) {
    const r = ranges[serverOfKey(key, s)] as KeyRange;
    return {
      push: pskv([r.begin + BigInt(n), r.begin + BigInt(key)], [0, compr * nb]),
      pull: pskv([r.begin + BigInt(key)], [n * nb]),
    };
  }
  const pushKeys: bigint[] = [];
  const pushLens: number[] = [];
  const pullKeys: bigint[] = [];
  const pullLens: number[] = [];
  let pushed = 0;
  let pulled = 0;
  for (let i = 0; i < s; i++) {
    const last = i === s - 1;
    const partCompr = last ? compr - pushed : cRound((compr / s) * (i + 1)) - cRound((compr / s) * i);
    const partOrig = last ? n - pulled : partCompr * compressionFactor(type);
    const begin = (ranges[i] as KeyRange).begin;
    pushKeys.push(begin + BigInt(partOrig), begin + BigInt(key));
    pushLens.push(0, partCompr * nb);
    pullKeys.push(begin + BigInt(key));
    pullLens.push(partOrig * nb);
    pushed += partCompr;
    pulled += partOrig;
  }
  return { push: pskv(pushKeys, pushLens), pull: pskv(pullKeys, pullLens) };
}

/**
 * MXNet `EncodeRowSparseKey` for the rows `rows` (ascending) of a table of `totalRows` rows of
 * `unit` elements of `numBytes` bytes: a master key (range.begin + key, length 0), then a key per
 * row (range.begin + key + row) of `unit × numBytes` bytes. A table of `totalRows × unit ≥ bound`
 * elements is split by rows over every server — part i has llround(R / S × (i + 1)) −
 * llround(R / S × i) rows, and a row's key counts from its part's first row — with a master key on
 * each server even when no row of its part is sent (so a sync server counts every push); a
 * smaller table goes to server (key × 9973) % S.
 */
export function encodeRowSparseKey(
  key: number,
  rows: ArrayLike<number>,
  unit: number,
  totalRows: number,
  numBytes: number,
  ranges: readonly KeyRange[],
  bigArrayBound: number,
): PSKV {
  const s = ranges.length;
  const keys: bigint[] = [];
  const lens: number[] = [];
  const rowBytes = unit * numBytes;
  const push = (range: KeyRange, offset: number) => {
    const psKey = range.begin + BigInt(key) + BigInt(offset);
    if (psKey >= range.end) {
      throw new MXNetError(`row ${offset} of key ${key} falls outside its server's key range`, {
        op: 'KVStoreDist.EncodeRowSparseKey',
        params: { key, offset },
      });
    }
    keys.push(psKey);
    lens.push(rowBytes);
  };
  if (totalRows * unit >= bigArrayBound) {
    let start = 0;
    let j = 0;
    for (let i = 0; i < s; i++) {
      const range = ranges[i] as KeyRange;
      keys.push(range.begin + BigInt(key));
      lens.push(0);
      const end = start + cRound((totalRows / s) * (i + 1)) - cRound((totalRows / s) * i);
      for (; j < rows.length && (rows[j] as number) < end; j++) push(range, (rows[j] as number) - start);
      start = end;
    }
  } else {
    const range = ranges[serverOfKey(key, s)] as KeyRange;
    keys.push(range.begin + BigInt(key));
    lens.push(0);
    for (let j = 0; j < rows.length; j++) push(range, rows[j] as number);
  }
  return pskv(keys, lens);
}

/** MXNet `DecodeKey`: the int key of a ps key on the server owning `range`. */
export function decodeKey(psKey: bigint, range: KeyRange): number {
  return Number(psKey - range.begin);
}

/** `MXNET_KVSTORE_BIGARRAY_BOUND` from `env` (default 1e6); an MXNetError when malformed. */
export function bigArrayBoundFrom(env: Env | undefined): number {
  const raw = env?.raw('MXNET_KVSTORE_BIGARRAY_BOUND');
  if (raw === undefined || raw.trim() === '') return DEFAULT_BIGARRAY_BOUND;
  const v = Number(raw);
  if (!Number.isInteger(v) || v < 1) {
    throw new MXNetError(`MXNET_KVSTORE_BIGARRAY_BOUND must be a positive integer, got '${raw}'`, {
      op: 'KVStoreDist',
      hint: 'unset it for the default 1000000',
    });
  }
  return v;
}
