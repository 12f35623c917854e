/**
 * NumPy `.npy` files (format 1.0, 2.0 and 3.0), as `npx.save`/`npx.load` (src/serialization/cnpy.cc).
 *
 * The writer produces MXNet's bytes exactly: `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`
 * padded with spaces and a newline so the preamble plus header is a multiple of 64, version 2.0
 * only when the header exceeds 65535 bytes; bfloat16 is the structured descr `[('bfloat16', '<u2')]`.
 * The reader accepts exactly what NumPy's `numpy.lib.format` reads: versions 1.0, 2.0 and 3.0 (no
 * other major or minor), a header that is a Python literal dict with exactly the keys 'descr',
 * 'fortran_order' and 'shape' (a tuple of integers), then exactly the data the header describes:
 * trailing bytes are an error, as is a shortfall. It parses the header properly (MXNet's cnpy
 * searches for substrings), decodes the 2.0/3.0 length correctly (MXNet shifts the wrong way),
 * byte-swaps big-endian data and turns Fortran-order arrays into row-major ones (MXNet transposes
 * them too). The data is checked against the load's {@link Budget} before it is copied.
 */
import { DType, type DTypeName, MXNetError, shapeToString } from '@mx/base';
import { ByteReader, bytesOfStorage, storageFromBytes } from './bytes.js';
import { Budget, type LoadLimits } from './limits.js';
import { type PyValue, parsePyLiteral } from './py-literal.js';
import { checkHostArray, elementCount, type HostArray } from './types.js';

export const NPY_MAGIC = Uint8Array.of(0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59); // \x93NUMPY

const BFLOAT16_DESCR = "[('bfloat16', '<u2')]";

/** `.npy` header dict text for `a`, as MXNet's `create_npy_header`. */
function headerDict(a: HostArray): string {
  const descr = a.dtype === 'bfloat16' ? BFLOAT16_DESCR : `'${DType[a.dtype].descr}'`;
  const dims = a.shape.join(', ') + (a.shape.length === 1 ? ',' : '');
  return `{'descr': ${descr}, 'fortran_order': False, 'shape': (${dims}), }`;
}

/** Serialises one array as a `.npy` file, byte for byte as MXNet's `npx.save`. */
export function saveNpy(a: HostArray): Uint8Array {
  checkHostArray('saveNpy', a, 'array');
  if (a.none === true) {
    throw new MXNetError('cannot save a "none" array as .npy', {
      op: 'saveNpy',
      hint: 'initialise the array first',
    });
  }
  let dict = headerDict(a);
  // Preamble is 10 bytes (version 1.0); the dict plus its final '\n' pads to a multiple of 64.
  dict += ' '.repeat(64 - ((10 + dict.length + 1) % 64));
  dict += '\n';
  // Over 65535 bytes needs version 2.0 (u32 length); MXNet keeps the padding computed for the
  // 10-byte preamble there too, and so do we, byte for byte.
  const v2 = dict.length > 0xffff;
  const head = new Uint8Array((v2 ? 12 : 10) + dict.length);
  head.set(NPY_MAGIC, 0);
  head[6] = v2 ? 2 : 1;
  head[7] = 0;
  const view = new DataView(head.buffer);
  if (v2) view.setUint32(8, dict.length, true);
  else view.setUint16(8, dict.length, true);
  const start = v2 ? 12 : 10;
  for (let i = 0; i < dict.length; i++) head[start + i] = dict.charCodeAt(i);
  const data = bytesOfStorage(a.data);
  const out = new Uint8Array(head.length + data.length);
  out.set(head, 0);
  out.set(data, head.length);
  return out;
}

/** Parsed `.npy` header. */
interface NpyHeader {
  readonly dtype: DTypeName;
  readonly bigEndian: boolean;
  readonly fortran: boolean;
  readonly shape: number[];
}

/** Reads a `.npy` file. `source` names it in errors; `limits` caps what it may decode. */
export function loadNpy(bytes: Uint8Array, source?: string, limits?: LoadLimits): HostArray {
  return readNpy(bytes, source, new Budget('loadNpy', source, bytes.length, limits));
}

/**
 * Reads a `.npy` file; `budget` is charged for the data (null when the bytes were already counted,
 * as an inflated npz member).
 */
export function readNpy(bytes: Uint8Array, source: string | undefined, budget: Budget | null): HostArray {
  const r = new ByteReader(bytes, 'loadNpy', source);
  r.where = 'npy header';
  const magic = r.take(6, 'npy magic');
  if (!magic.every((b, i) => b === NPY_MAGIC[i])) {
    throw r.corrupt('missing the \\x93NUMPY magic', 0, 'this is not a .npy file');
  }
  const major = r.take(1, 'npy version')[0] as number;
  const minor = r.take(1, 'npy version')[0] as number;
  if (major < 1 || major > 3 || minor !== 0) {
    throw r.corrupt(
      `unsupported npy format version ${major}.${minor}`,
      6,
      'NumPy writes and reads versions 1.0, 2.0 and 3.0 only: the file is corrupt or from a newer NumPy',
    );
  }
  const hlenAt = r.pos;
  const hlen = major === 1 ? r.u16('header length') : r.u32('header length');
  if (hlen > r.remaining) {
    throw r.corrupt(`header length ${hlen} does not fit in the ${r.remaining} bytes left`, hlenAt);
  }
  const headerAt = r.pos;
  const raw = r.take(hlen, 'header text');
  let text: string;
  if (major === 3) {
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(raw);
    } catch {
      throw r.corrupt('bad header: a version 3.0 header must be UTF-8', headerAt);
    }
  } else {
    text = latin1(raw);
  }
  const h = parseHeader(text, (msg) => r.corrupt(`bad header: ${msg}`, headerAt));
  r.where = 'npy data';
  const info = DType[h.dtype];
  const n = h.shape.includes(0) ? 0 : elementCount(h.shape);
  const nbytes = n * info.bytes;
  const what = `${h.dtype} data for shape ${shapeToString(h.shape)}`;
  if (!Number.isSafeInteger(nbytes))
    throw r.corrupt(`shape ${shapeToString(h.shape)} is too large`, headerAt);
  r.need(nbytes, what);
  const dataAt = r.pos;
  r.skip(nbytes);
  r.expectEnd(what);
  budget?.charge(nbytes, what);
  let body = bytes.subarray(dataAt, dataAt + nbytes);
  if (h.fortran && h.shape.length > 1) body = fortranToC(body, h.shape, info.bytes);
  const data = storageFromBytes(h.dtype, body, h.bigEndian);
  return { shape: h.shape, dtype: h.dtype, data };
}

function latin1(raw: Uint8Array): string {
  let s = '';
  for (const b of raw) s += String.fromCharCode(b);
  return s;
}

function parseHeader(text: string, corrupt: (msg: string) => Error): NpyHeader {
  let v: PyValue;
  try {
    v = parsePyLiteral(text);
  } catch (e) {
    throw corrupt((e as Error).message);
  }
  if (v.kind !== 'dict') throw corrupt('the header is not a dict');
  const descr = v.entries.get('descr');
  const fortran = v.entries.get('fortran_order');
  const shape = v.entries.get('shape');
  if (descr === undefined || fortran === undefined || shape === undefined || v.entries.size !== 3) {
    throw corrupt(
      `the header must have exactly the keys 'descr', 'fortran_order' and 'shape', found ${[...v.entries.keys()].map((k) => `'${k}'`).join(', ')}`,
    );
  }
  if (fortran.kind !== 'bool') throw corrupt("'fortran_order' is not True/False");
  if (shape.kind !== 'tuple') throw corrupt("'shape' is not a tuple");
  const dims: number[] = [];
  for (const d of shape.items) {
    if (d.kind !== 'int' || d.value < 0) throw corrupt("'shape' must hold integers >= 0");
    dims.push(d.value);
  }
  const { dtype, bigEndian } = parseDescr(descr, corrupt);
  return { dtype, bigEndian, fortran: fortran.value, shape: dims };
}

/** Maps an npy `descr` to a dtype; structured `[('bfloat16', '<u2')]` is MXNet's bfloat16. */
function parseDescr(
  descr: PyValue,
  corrupt: (msg: string) => Error,
): { dtype: DTypeName; bigEndian: boolean } {
  if (descr.kind === 'list' && descr.items.length === 1) {
    const field = descr.items[0] as PyValue;
    if (field.kind === 'tuple' && field.items.length === 2) {
      const [name, sub] = field.items as [PyValue, PyValue];
      if (
        name.kind === 'str' &&
        name.value === 'bfloat16' &&
        sub.kind === 'str' &&
        /^[<>|=]?u2$/.test(sub.value)
      ) {
        return { dtype: 'bfloat16', bigEndian: sub.value.startsWith('>') };
      }
    }
  }
  if (descr.kind !== 'str') throw corrupt(`unsupported dtype descr ${describe(descr)}`);
  const m = /^([<>|=]?)([fiub])(\d+)$/.exec(descr.value);
  const name = m === null ? undefined : DESCR_TO_DTYPE[`${m[2]}${m[3]}`];
  if (m === null || name === undefined) {
    throw corrupt(
      `unsupported dtype descr '${descr.value}' (MXNet arrays hold bool, (u)int8..64, float16/32/64, bfloat16)`,
    );
  }
  return { dtype: name, bigEndian: m[1] === '>' };
}

const DESCR_TO_DTYPE: Readonly<Record<string, DTypeName>> = {
  f2: 'float16',
  f4: 'float32',
  f8: 'float64',
  i1: 'int8',
  i2: 'int16',
  i4: 'int32',
  i8: 'int64',
  u1: 'uint8',
  u2: 'uint16',
  u4: 'uint32',
  u8: 'uint64',
  b1: 'bool',
};

function describe(v: PyValue): string {
  return v.kind === 'str' ? `'${v.value}'` : `(a ${v.kind})`;
}

/** Reorders column-major element bytes of `shape` into row-major order. */
export function fortranToC(src: Uint8Array, shape: readonly number[], width: number): Uint8Array {
  const n = elementCount(shape);
  const out = new Uint8Array(src.length);
  if (n === 0) return out;
  const nd = shape.length;
  const fstride: number[] = [];
  let s = 1;
  for (let k = 0; k < nd; k++) {
    fstride.push(s);
    s *= shape[k] as number;
  }
  const idx = new Array<number>(nd).fill(0);
  let f = 0;
  for (let j = 0; j < n; j++) {
    out.set(src.subarray(f * width, f * width + width), j * width);
    // Advance the row-major counter (last axis fastest), tracking the column-major offset.
    for (let k = nd - 1; k >= 0; k--) {
      const next = (idx[k] as number) + 1;
      if (next < (shape[k] as number)) {
        idx[k] = next;
        f += fstride[k] as number;
        break;
      }
      f -= (idx[k] as number) * (fstride[k] as number);
      idx[k] = 0;
    }
  }
  return out;
}
