/**
 * IDX files (the MNIST format, http://yann.lecun.com/exdb/mnist/): a 4-byte magic `00 00 TT NN`
 * (TT the element type, NN the number of dimensions), NN big-endian int32 sizes, then the
 * elements in row-major order, big-endian. Often distributed gzip-compressed (`*.gz`).
 *
 * MXNet's MNISTIter skips the magic and trusts the sizes; a wrong or damaged file then gives
 * garbage or a crash. Here every header is checked against the file length, so a truncated,
 * padded or mislabelled file fails with an MXNetError that says which. A gzip file is read in two
 * steps so it cannot inflate past what it claims: first just its first bytes, for the header,
 * then at most the size that header declares (checked against `maxBytes`/`maxExpansion` before
 * anything is inflated); more content than declared, or fewer, is an error. Decompression is
 * @mx/ndarray's bounded pure-TypeScript gunzip, so gzip files load in browsers too.
 */
import { type DTypeName, MXNetError, type StorageArray } from '@mx/base';
import { DEFAULT_MAX_BYTES, gunzip, isGzip, type LoadLimits } from '@mx/ndarray';

/** IDX element types: code → dtype, bytes per element. */
const IDX_TYPES: ReadonlyMap<number, { dtype: DTypeName; bytes: number }> = new Map([
  [0x08, { dtype: 'uint8', bytes: 1 }],
  [0x09, { dtype: 'int8', bytes: 1 }],
  [0x0b, { dtype: 'int16', bytes: 2 }],
  [0x0c, { dtype: 'int32', bytes: 4 }],
  [0x0d, { dtype: 'float32', bytes: 4 }],
  [0x0e, { dtype: 'float64', bytes: 8 }],
]);

/** Longest possible header: magic plus 255 sizes. */
const MAX_HEADER_BYTES = 4 + 4 * 255;

export interface IdxArray {
  readonly dtype: DTypeName;
  readonly shape: readonly number[];
  /** The elements in row-major order (for uint8, a view on the (decompressed) input bytes). */
  readonly data: StorageArray;
}

/** A checked header and the file length it implies. */
interface IdxHeader {
  readonly dtype: DTypeName;
  readonly bytesPer: number;
  readonly shape: number[];
  readonly headerBytes: number;
  readonly count: number;
  readonly expected: number;
}

const hex = (v: number) => `0x${v.toString(16).padStart(8, '0')}`;
const OP = 'parseIdx';

/**
 * Parse an IDX file (gzip-compressed or not). `what` names the file in error messages; `limits`
 * caps what a compressed file may inflate to (default 2 GiB and 1032 bytes per input byte).
 * Throws an MXNetError for a bad magic, a truncated header, or a length that does not match the
 * sizes in the header.
 */
export function parseIdx(bytes: Uint8Array, what = 'IDX', limits: LoadLimits = {}): IdxArray {
  if (isGzip(bytes)) {
    const source = `the ${what} file`;
    // The header is at the start of the content: inflate only that much to read it.
    const head = gunzip(bytes, { op: OP, source, prefix: true, maxOutput: MAX_HEADER_BYTES });
    const h = readHeader(head, what, ' (decompressed)');
    const content = gunzip(bytes, {
      ...limits,
      op: OP,
      source,
      maxOutput: h.expected,
      limitName: `the size its IDX header declares (shape (${h.shape.join(', ')}) of ${h.dtype})`,
    });
    checkLength(content, h, what, ' decompressed');
    return decode(content, h);
  }
  const h = readHeader(bytes, what, '');
  const maxBytes = limits.maxBytes ?? DEFAULT_MAX_BYTES;
  if (h.expected > maxBytes) {
    throw new MXNetError(
      `the ${what} file's header declares ${h.expected} bytes, over the load's maxBytes of ${maxBytes}`,
      { op: OP, shapes: [h.shape], hint: 'if the file is trusted, raise the maxBytes load option' },
    );
  }
  checkLength(bytes, h, what, '');
  return decode(bytes, h);
}

/** Checks the magic and sizes at the start of `bytes` (the whole file, or its first bytes). */
function readHeader(bytes: Uint8Array, what: string, decompressed: string): IdxHeader {
  if (bytes.length < 4) {
    throw new MXNetError(
      `the ${what} file has ${bytes.length} bytes${decompressed}, too few for an IDX header`,
      {
        op: OP,
        hint: 'the file is empty or truncated',
      },
    );
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const magic = view.getUint32(0, false);
  const type = IDX_TYPES.get(bytes[2] as number);
  const ndim = bytes[3] as number;
  if (bytes[0] !== 0 || bytes[1] !== 0 || type === undefined || ndim === 0) {
    throw new MXNetError(`the ${what} file does not start with an IDX magic number (found ${hex(magic)})`, {
      op: OP,
      hint: 'IDX files start with 00 00, an element type (08 for unsigned bytes) and the number of dimensions',
    });
  }
  const headerBytes = 4 + 4 * ndim;
  if (bytes.length < headerBytes) {
    throw new MXNetError(
      `the ${what} file is truncated: its magic ${hex(magic)} announces ${ndim} dimension sizes, but the file has ${bytes.length} bytes${decompressed}`,
      { op: OP, hint: 'the file is truncated or corrupt: download it again' },
    );
  }
  const shape: number[] = [];
  for (let d = 0; d < ndim; d++) {
    const size = view.getInt32(4 + 4 * d, false);
    if (size < 0) {
      throw new MXNetError(
        `the ${what} file's header has a negative size ${size} for dimension ${d} at offset ${4 + 4 * d}`,
        { op: OP, hint: 'the file is corrupt: download it again' },
      );
    }
    shape.push(size);
  }
  const count = shape.includes(0) ? 0 : shape.reduce((a, b) => a * b, 1);
  const expected = headerBytes + count * type.bytes;
  if (!Number.isSafeInteger(expected)) {
    throw new MXNetError(
      `the ${what} file's header declares shape (${shape.join(', ')}), too large for any file`,
      {
        op: OP,
        hint: 'the file is corrupt: download it again',
      },
    );
  }
  return { dtype: type.dtype, bytesPer: type.bytes, shape, headerBytes, count, expected };
}

function checkLength(bytes: Uint8Array, h: IdxHeader, what: string, decompressed: string): void {
  if (bytes.length === h.expected) return;
  throw new MXNetError(
    `the ${what} file's header says shape (${h.shape.join(', ')}) of ${h.dtype}, i.e. ${h.expected} bytes, but the${decompressed} file has ${bytes.length}`,
    {
      op: OP,
      shapes: [h.shape],
      hint:
        bytes.length < h.expected
          ? 'the file is truncated: download it again'
          : 'the file has trailing bytes: it is corrupt, or not the file you meant',
    },
  );
}

function decode(bytes: Uint8Array, h: IdxHeader): IdxArray {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { dtype: h.dtype, shape: h.shape, data: elements(view, h.headerBytes, h.count, h.dtype, bytes) };
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
      throw new MXNetError(`IDX has no element type for ${dtype}`, { op: OP });
  }
}
