/**
 * MXNet's wire encodings against the Python transcription of kvstore_dist.h / ps-lite in
 * tools/golden/kvstore/dist.py (src/__golden__/dist.json): server key ranges, key placement with
 * C++ int arithmetic, default and compressed PSKVs (big arrays split over the servers), and the
 * Cantor pairing of request type and dtype.
 */
import { Env, MXNetError } from '@mx/base';
import { describe, expect, it } from 'vitest';
import golden from '../__golden__/dist.json' with { type: 'json' };
import type { CompressionType } from '../compression/quantize.js';
import {
  bigArrayBoundFrom,
  depairDataHandleType,
  encodeCompressedKey,
  encodeDefaultKey,
  getCommandType,
  type PSKV,
  type RequestType,
  serverKeyRanges,
  serverOfKey,
} from './encoding.js';

interface Wire {
  keys: string[];
  lens: number[];
  size: number;
}
const wire = (p: PSKV): Wire => ({ keys: [...p.keys].map(String), lens: [...p.lens], size: p.size });

describe('ps-lite key ranges and MXNet key placement', () => {
  it('splits the uint64 key space as ps-lite does', () => {
    for (const [s, ranges] of Object.entries(golden.ranges)) {
      expect(serverKeyRanges(Number(s)).map((r) => [String(r.begin), String(r.end)])).toEqual(ranges);
    }
  });

  it('places small arrays on (key * 9973) % S with 32-bit int products', () => {
    for (const { key, servers, server } of golden.placement) {
      if (server < 0) {
        // MXNet would index a negative server (undefined behaviour): refused here.
        expect(() => serverOfKey(key, servers)).toThrow(MXNetError);
      } else {
        expect(serverOfKey(key, servers), `key ${key} on ${servers}`).toBe(server);
      }
    }
    expect(golden.placement.some((p) => p.server < 0)).toBe(true);
  });
});

describe('EncodeDefaultKey and EncodeCompressedKey', () => {
  it('gives the PSKV of the transcription, big arrays split with C round', () => {
    for (const c of golden.default) {
      const got = encodeDefaultKey(c.key, c.n, c.bytes, serverKeyRanges(c.servers), c.bound);
      expect(wire(got), JSON.stringify(c)).toEqual({ keys: c.keys, lens: c.lens, size: c.size });
    }
    expect(golden.default.some((c) => c.keys.length > 1 && new Set(c.lens).size > 1)).toBe(true);
  });

  it('gives the push (meta key + packed) and pull PSKVs of compressed keys', () => {
    for (const c of golden.compressed) {
      const got = encodeCompressedKey(
        c.key,
        c.n,
        c.type as CompressionType,
        serverKeyRanges(c.servers),
        c.bound,
      );
      expect(wire(got.push), JSON.stringify(c)).toEqual(c.push);
      expect(wire(got.pull), JSON.stringify(c)).toEqual(c.pull);
    }
  });
});

describe('GetCommandType / DepairDataHandleType', () => {
  it('pairs request type and dtype flag as MXNet, and inverts it', () => {
    for (const { request, dtype, cmd } of golden.commands) {
      expect(getCommandType(request as RequestType, dtype)).toBe(cmd);
      expect(depairDataHandleType(cmd)).toEqual({ requestType: request, dtypeFlag: dtype });
    }
  });

  it('refuses commands that are no request', () => {
    expect(() => depairDataHandleType(-1)).toThrow(MXNetError);
    expect(() => depairDataHandleType(getCommandType(0, 3) + 0.5)).toThrow(MXNetError);
  });
});

describe('MXNET_KVSTORE_BIGARRAY_BOUND', () => {
  it('defaults to 1e6 and reads the Env', () => {
    expect(bigArrayBoundFrom(undefined)).toBe(1_000_000);
    expect(bigArrayBoundFrom(new Env({ MXNET_KVSTORE_BIGARRAY_BOUND: '100' }))).toBe(100);
    expect(() => bigArrayBoundFrom(new Env({ MXNET_KVSTORE_BIGARRAY_BOUND: 'ten' }))).toThrow(
      /MXNET_KVSTORE_BIGARRAY_BOUND/,
    );
  });
});
