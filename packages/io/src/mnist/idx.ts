/**
 * IDX files (the MNIST format, http://yann.lecun.com/exdb/mnist/): a 4-byte magic `00 00 TT NN`
 * (TT the element type, NN the number of dimensions), NN big-endian int32 sizes, then the
 * elements in row-major order, big-endian.
 *
 * MXNet's MNISTIter skips the magic and trusts the sizes; a wrong or damaged file then gives
 * garbage or a crash. Here every header is checked against the file length, so a truncated,
 * padded or mislabelled file fails with an MXNetError that says which.
 */
import { type DTypeName, MXNetError, type StorageArray } from '@mx/base';
import { gunzip, isGzip } from '../host.js';

/** IDX element types: code → dtype, bytes per element. */
const IDX_TYPES: ReadonlyMap<number, { dtype: DTypeName; bytes: number }> = new Map([
  [0x08, { dtype: 'uint8', bytes: 1 }],
  [0x09, { dtype: 'int8', bytes: 1 }],
  [0x0b, { dtype: 'int16', bytes: 2 }],
  [0x0c, { dtype: 'int32', bytes: 4 }],
  [0x0d, { dtype: 'float32', bytes: 4 }],
  [0x0e, { dtype: 'float64', bytes: 8 }],
]);

export interface IdxArray {
  readonly dtype: DTypeName;
  readonly shape: readonly number[];
  /** The elements in row-major order (for uint8, a view on the input bytes). */
  readonly data: StorageArray;
}

const hex = (v: number) => `0x${v.toString(16).padStart(8, '0')}`;

/**
 * Parse an IDX file (gzip-compressed or not). `what` names the file in error messages.
 * Throws an MXNetError for a bad magic, a truncated header, or a length that does not match the
 * sizes in the header.
 */
export function parseIdx(bytes: Uint8Array, what = 'IDX'): IdxArray {
  const op = 'parseIdx';
  if (isGzip(bytes)) bytes = gunzip(bytes, op, what);
  if (bytes.length < 4) {
    throw new MXNetError(`the ${what} file has ${bytes.length} bytes, too few for an IDX header`, {
      op,
      hint: 'the file is empty or truncated',
    });
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const magic = view.getUint32(0, false);
  const type = IDX_TYPES.get(bytes[2] as number);
  const ndim = bytes[3] as number;
  if (bytes[0] !== 0 || bytes[1] !== 0 || type === undefined || ndim === 0) {
    throw new MXNetError(`the ${what} file does not start with an IDX magic number (found ${hex(magic)})`, {
      op,
      hint: 'IDX files start with 00 00, an element type (08 for unsigned bytes) and the number of dimensions',
    });
  }
  const headerBytes = 4 + 4 * ndim;
  if (bytes.length < headerBytes) {
    throw new MXNetError(
      `the ${what} file is truncated: its magic ${hex(magic)} announces ${ndim} dimension sizes, but the file has ${bytes.length} bytes`,
      { op, hint: 'the file is truncated or corrupt: download it again' },
    );
  }
  const shape: number[] = [];
  for (let d = 0; d < ndim; d++) {
    const size = view.getInt32(4 + 4 * d, false);
    if (size < 0) {
      throw new MXNetError(`the ${what} file's header has a negative size ${size} for dimension ${d}`, {
        op,
        hint: 'the file is corrupt: download it again',
      });
    }
    shape.push(size);
  }
  const count = shape.reduce((a, b) => a * b, 1);
  const expected = headerBytes + count * type.bytes;
  if (bytes.length !== expected) {
    throw new MXNetError(
      `the ${what} file's header says shape (${shape.join(', ')}) of ${type.dtype}, i.e. ${expected} bytes, but the file has ${bytes.length}`,
      {
        op,
        shapes: [shape],
        hint:
          bytes.length < expected
            ? 'the file is truncated: download it again'
            : 'the file has trailing bytes: it is corrupt, or not the file you meant',
      },
    );
  }
  return { dtype: type.dtype, shape, data: elements(view, headerBytes, count, type.dtype, bytes) };
}

function elements(
  view: DataView,
  offset: number,
  count: number,
  dtype: DTypeName,
  bytes: Uint8Array,
): StorageArray {
  switch (dtype) {
    case 'uint8':
      return bytes.subarray(offset, offset + count);
    case 'int8':
      return new Int8Array(bytes.buffer, bytes.byteOffset + offset, count);
    case 'int16': {
      const out = new Int16Array(count);
      for (let i = 0; i < count; i++) out[i] = view.getInt16(offset + 2 * i, false);
      return out;
    }
    case 'int32': {
      const out = new Int32Array(count);
      for (let i = 0; i < count; i++) out[i] = view.getInt32(offset + 4 * i, false);
      return out;
    }
    case 'float32': {
      const out = new Float32Array(count);
      for (let i = 0; i < count; i++) out[i] = view.getFloat32(offset + 4 * i, false);
      return out;
    }
    case 'float64': {
      const out = new Float64Array(count);
      for (let i = 0; i < count; i++) out[i] = view.getFloat64(offset + 8 * i, false);
      return out;
    }
    default:
      throw new MXNetError(`IDX has no element type for ${dtype}`, { op: 'parseIdx' });
  }
}
