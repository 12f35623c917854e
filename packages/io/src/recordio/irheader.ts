/**
 * MXNet's image-record header (`mx.recordio.IRHeader`, `pack`, `unpack`): 24 little-endian bytes,
 * struct 'IfQQ' = uint32 flag, float32 label, uint64 id, uint64 id2 (C++: `ImageRecordIO::Header`),
 * then, when the label is an array, `flag` float32 labels in front of the payload. The ids are
 * uint64: they come back as numbers up to 2^53 - 1 and as bigints above. `packImg`/`unpackImg`
 * (encoding the payload as JPEG/PNG) belong with the image codecs and are not here.
 */
import { MXNetError } from '@mx/base';

/** Bytes of the fixed header. */
export const IR_HEADER_SIZE = 24;

/** A record header (MXNet's `IRHeader(flag, label, id, id2)` named tuple). */
export interface IRHeader {
  /** 0 for a scalar label; the number of float32 labels in front of the payload otherwise. */
  readonly flag: number;
  /** The label (float32), or the labels when `flag > 0`. */
  readonly label: number | Float32Array;
  /** uint64 record id (a bigint above 2^53 - 1). */
  readonly id: number | bigint;
  /** uint64, "higher order bits of the id", usually 0. */
  readonly id2: number | bigint;
}

/** What `pack` takes: `flag` is ignored (derived from the label, as MXNet does). */
export interface IRHeaderInit {
  readonly flag?: number;
  readonly label: number | ArrayLike<number>;
  readonly id?: number | bigint;
  readonly id2?: number | bigint;
}

/** MXNet's positional form: `IRHeader(0, label, id, 0)`. */
export function IRHeader(
  flag: number,
  label: number | ArrayLike<number>,
  id: number | bigint,
  id2: number | bigint,
): IRHeaderInit {
  return { flag, label, id, id2 };
}

const U64_LIMIT = 1n << 64n;

function toU64(v: number | bigint, what: string): bigint {
  const ok = typeof v === 'bigint' || Number.isInteger(v);
  const b = ok ? BigInt(v) : -1n;
  if (!ok || b < 0n || b >= U64_LIMIT) {
    throw new MXNetError(`IRHeader ${what} must be an integer in [0, 2^64); got ${String(v)}`, {
      op: 'pack',
      params: { [what]: typeof v === 'bigint' ? v.toString() : v },
      hint: "ids are stored as uint64 (struct 'Q')",
    });
  }
  return b;
}

function fromU64(b: bigint): number | bigint {
  return b <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(b) : b;
}

/**
 * Packs a header and payload into a record payload (MXNet `recordio.pack`). A scalar label is
 * stored with flag 0; an array label sets flag = its length, label = 0, and goes in front of `s` as
 * float32 (values beyond float32's range become +-Infinity, as the C cast in struct does).
 */
export function pack(header: IRHeaderInit, s: Uint8Array | string): Uint8Array {
  const payload = typeof s === 'string' ? new TextEncoder().encode(s) : s;
  const scalar = typeof header.label === 'number';
  const labels = scalar ? [] : Array.from(header.label as ArrayLike<number>);
  const id = toU64(header.id ?? 0, 'id');
  const id2 = toU64(header.id2 ?? 0, 'id2');
  const out = new Uint8Array(IR_HEADER_SIZE + 4 * labels.length + payload.length);
  const v = new DataView(out.buffer);
  v.setUint32(0, labels.length, true);
  v.setFloat32(4, scalar ? (header.label as number) : 0, true);
  v.setBigUint64(8, id, true);
  v.setBigUint64(16, id2, true);
  for (let i = 0; i < labels.length; i++) v.setFloat32(IR_HEADER_SIZE + 4 * i, labels[i] as number, true);
  out.set(payload, IR_HEADER_SIZE + 4 * labels.length);
  return out;
}

/**
 * Splits a record payload into its header and the rest (MXNet `recordio.unpack`); with `flag > 0`
 * the labels come back as a Float32Array. The rest is a view into `s`, not a copy.
 */
export function unpack(s: Uint8Array): [IRHeader, Uint8Array] {
  if (s.length < IR_HEADER_SIZE) {
    throw new MXNetError(
      `a packed record starts with a ${IR_HEADER_SIZE}-byte IRHeader; this one has ${s.length} bytes`,
      {
        op: 'unpack',
        params: { length: s.length },
        hint: 'the record was not written with pack()/pack_img() (im2rec); read it as raw bytes',
      },
    );
  }
  const v = new DataView(s.buffer, s.byteOffset, s.byteLength);
  const flag = v.getUint32(0, true);
  const id = fromU64(v.getBigUint64(8, true));
  const id2 = fromU64(v.getBigUint64(16, true));
  if (flag === 0) return [{ flag, label: v.getFloat32(4, true), id, id2 }, s.subarray(IR_HEADER_SIZE)];
  const end = IR_HEADER_SIZE + 4 * flag;
  if (s.length < end) {
    throw new MXNetError(
      `the IRHeader says ${flag} float32 labels follow it (${4 * flag} bytes), but only ${s.length - IR_HEADER_SIZE} bytes do`,
      {
        op: 'unpack',
        params: { flag, length: s.length },
        hint: 'the record is truncated or was not written with pack()',
      },
    );
  }
  const label = new Float32Array(flag);
  for (let i = 0; i < flag; i++) label[i] = v.getFloat32(IR_HEADER_SIZE + 4 * i, true);
  return [{ flag, label, id, id2 }, s.subarray(end)];
}
