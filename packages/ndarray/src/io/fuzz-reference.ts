/**
 * Test-only reference decoders for the strict-loader fuzz tests: plain, slow, written straight
 * from the format descriptions (mxnet-catalog.md, NumPy's format spec, APPNOTE.TXT, RFC 1952)
 * and the strictness rules documented in the loaders' headers, sharing no code with the loaders.
 * DEFLATE and CRC-32 come from Node's zlib, an independent implementation.
 *
 * Each returns the content a file holds (shapes, dtypes, devices, names, element bytes in
 * little-endian row-major order) or null when a strict reader must reject it. The fuzz tests then
 * require the real loader to agree exactly: accept with the same content, or reject. "Accepted"
 * thus means "the content is exactly what the bytes say".
 */
import { inflateRawSync, crc32 as zcrc32 } from 'node:zlib';

export interface RefArray {
  readonly none: boolean;
  readonly shape: readonly number[];
  readonly dtype: string;
  /** [devType, devId] for MXNet records; null for NumPy. */
  readonly ctx: readonly [number, number] | null;
  /** Element bytes, little-endian, row-major. */
  readonly bytes: Uint8Array;
}

export interface RefFile {
  readonly arrays: RefArray[];
  readonly names: string[] | null;
}

/** Signals "a strict reader rejects this". */
class Reject extends Error {}
const reject = (why: string): never => {
  throw new Reject(why);
};

/** Runs a reference decoder: its result, or null for a rejection. */
export function reference<T>(decode: () => T): T | null {
  try {
    return decode();
  } catch (e) {
    if (e instanceof Reject) return null;
    throw e;
  }
}

/** MXNet dtype flags 0..12 with element sizes. */
export const FLAG_DTYPES: readonly [string, number][] = [
  ['float32', 4],
  ['float64', 8],
  ['float16', 2],
  ['uint8', 1],
  ['int32', 4],
  ['int8', 1],
  ['int64', 8],
  ['bool', 1],
  ['int16', 2],
  ['uint16', 2],
  ['uint32', 4],
  ['uint64', 8],
  ['bfloat16', 2],
];

/** A little-endian cursor that rejects on any overrun. */
class Cursor {
  pos: number;
  constructor(
    readonly b: Uint8Array,
    pos = 0,
  ) {
    this.pos = pos;
  }
  get left(): number {
    return this.b.length - this.pos;
  }
  bytes(n: number): Uint8Array {
    if (!(n >= 0) || n > this.left) reject('overrun');
    const out = this.b.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
  uint(n: 1 | 2 | 4 | 8): number {
    const raw = this.bytes(n);
    let v = 0;
    for (let i = n - 1; i >= 0; i--) v = v * 256 + (raw[i] as number);
    if (v > Number.MAX_SAFE_INTEGER) reject('too large');
    return v;
  }
  int(n: 4 | 8): number {
    const raw = this.bytes(n);
    const negative = ((raw[n - 1] as number) & 0x80) !== 0;
    let v = 0;
    for (let i = n - 1; i >= 0; i--) v = v * 256 + (negative ? 255 - (raw[i] as number) : (raw[i] as number));
    const out = negative ? -(v + 1) : v;
    if (!Number.isSafeInteger(out)) reject('out of range');
    return out;
  }
}

const product = (shape: readonly number[]): number => shape.reduce((a, b) => a * b, 1);

// ---- MXNet list files --------------------------------------------------------------------------

export function refMXNetList(b: Uint8Array, mode: boolean | 'global'): RefFile {
  const c = new Cursor(b);
  if (c.uint(8) !== 0x112) reject('magic');
  if (c.uint(8) !== 0) reject('reserved');
  const n = c.uint(8);
  if (n > b.length) reject('count');
  const arrays: RefArray[] = [];
  for (let i = 0; i < n; i++) arrays.push(refRecord(c, mode));
  const k = c.uint(8);
  if (k !== 0 && k !== n) reject('name count');
  let names: string[] | null = null;
  if (k > 0) {
    names = [];
    for (let i = 0; i < k; i++) {
      const raw = c.bytes(c.uint(8));
      let name: string;
      try {
        name = new TextDecoder('utf-8', { fatal: true }).decode(raw);
      } catch {
        return reject('utf-8');
      }
      if (names.includes(name)) reject('duplicate');
      names.push(name);
    }
  }
  if (c.left !== 0) reject('trailing');
  return { arrays, names };
}

const NONE: RefArray = { none: true, shape: [], dtype: 'float32', ctx: null, bytes: new Uint8Array(0) };

function refRecord(c: Cursor, mode: boolean | 'global'): RefArray {
  const magic = c.uint(4);
  if (magic === 0xf993faca) {
    if (mode === false) reject('V3 needs np shape');
    if (c.int(4) !== 0) reject('V3 stype');
    const shape = tshape(c, true, false);
    return shape === null ? NONE : body(c, shape);
  }
  if (mode === true) reject('legacy needs np shape off');
  if (magic === 0xf993fac9) {
    const stype = c.int(4);
    if (stype !== 0) reject('sparse or undefined storage');
    const np = mode === 'global';
    const shape = tshape(c, np, !np);
    return shape === null ? NONE : body(c, shape);
  }
  if (magic === 0xf993fac8) {
    const shape = tshape(c, true, true);
    return shape === null ? NONE : body(c, shape);
  }
  if (magic > 64) reject('unknown magic');
  if (magic === 0) return NONE;
  const shape: number[] = [];
  for (let i = 0; i < magic; i++) shape.push(c.uint(4));
  return body(c, shape);
}

function tshape(c: Cursor, unknownIsNone: boolean, zeroIsNone: boolean): number[] | null {
  const ndim = c.int(4);
  if (ndim === -1 && unknownIsNone) return null;
  if (ndim < 0) reject('ndim');
  if (ndim * 8 > c.left) reject('ndim overrun');
  const dims: number[] = [];
  let none = ndim === 0 && zeroIsNone;
  for (let i = 0; i < ndim; i++) {
    const d = c.int(8);
    if (d === -1 && unknownIsNone) none = true;
    else if (d < 0) reject('dim');
    dims.push(d);
  }
  return none ? null : dims;
}

function body(c: Cursor, shape: number[]): RefArray {
  const devType = c.int(4);
  const devId = c.int(4);
  const flag = c.int(4);
  const dt = FLAG_DTYPES[flag];
  if (dt === undefined) return reject('dtype flag');
  const n = shape.includes(0) ? 0 : product(shape) * dt[1];
  if (!Number.isSafeInteger(n)) reject('size');
  const bytes = c.bytes(n).slice();
  if (![1, 2, 3, 5].includes(devType) || devId < 0 || devId >= 16) reject('device');
  return { none: false, shape, dtype: dt[0], ctx: [devType, devId], bytes };
}

// ---- .npy --------------------------------------------------------------------------------------

const DESCRS: Readonly<Record<string, [string, number]>> = {
  f2: ['float16', 2],
  f4: ['float32', 4],
  f8: ['float64', 8],
  i1: ['int8', 1],
  i2: ['int16', 2],
  i4: ['int32', 4],
  i8: ['int64', 8],
  u1: ['uint8', 1],
  u2: ['uint16', 2],
  u4: ['uint32', 4],
  u8: ['uint64', 8],
  b1: ['bool', 1],
};

export function refNpy(b: Uint8Array): RefArray {
  const c = new Cursor(b);
  const magic = c.bytes(6);
  if (String.fromCharCode(...magic) !== '\x93NUMPY') reject('magic');
  const major = c.uint(1);
  const minor = c.uint(1);
  if (![1, 2, 3].includes(major) || minor !== 0) reject('version');
  const hlen = c.uint(major === 1 ? 2 : 4);
  const raw = c.bytes(hlen);
  let text = '';
  if (major === 3) {
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(raw);
    } catch {
      reject('utf-8');
    }
  } else {
    for (const x of raw) text += String.fromCharCode(x);
  }
  const h = headerDict(text);
  const keys = Object.keys(h).sort().join(',');
  if (keys !== 'descr,fortran_order,shape') reject('keys');
  const shape = h.shape;
  if (!(shape instanceof Tuple) || !shape.items.every((d) => typeof d === 'number' && d >= 0))
    reject('shape');
  const dims = (shape as Tuple).items as number[];
  if (typeof h.fortran_order !== 'boolean') reject('fortran_order');
  const [dtype, size, big] = descrOf(h.descr);
  const n = dims.includes(0) ? 0 : product(dims) * size;
  if (!Number.isSafeInteger(n)) reject('size');
  const data = c.bytes(n).slice();
  if (c.left !== 0) reject('trailing');
  if (big) {
    for (let i = 0; i < data.length; i += size) data.subarray(i, i + size).reverse();
  }
  const out = h.fortran_order && dims.length > 1 ? fromFortran(data, dims, size) : data;
  return { none: false, shape: dims, dtype, ctx: null, bytes: out };
}

function descrOf(d: unknown): [string, number, boolean] {
  if (Array.isArray(d)) {
    const f = d[0];
    if (d.length === 1 && f instanceof Tuple && f.items.length === 2 && f.items[0] === 'bfloat16') {
      const m = typeof f.items[1] === 'string' ? /^([<>|=]?)u2$/.exec(f.items[1]) : null;
      if (m !== null) return ['bfloat16', 2, m[1] === '>'];
    }
    return reject('structured descr');
  }
  if (typeof d !== 'string') return reject('descr');
  const m = /^([<>|=]?)([fiub]\d+)$/.exec(d);
  const t = m === null ? undefined : DESCRS[m[2] as string];
  if (m === null || t === undefined) return reject('descr');
  return [t[0], t[1], m[1] === '>'];
}

function fromFortran(src: Uint8Array, dims: number[], size: number): Uint8Array {
  const out = new Uint8Array(src.length);
  const n = product(dims);
  for (let j = 0; j < n; j++) {
    // Row-major index j -> coordinates -> column-major offset.
    let rest = j;
    let f = 0;
    let stride = 1;
    const coords: number[] = [];
    for (let k = dims.length - 1; k >= 0; k--) {
      coords[k] = rest % (dims[k] as number);
      rest = Math.floor(rest / (dims[k] as number));
    }
    for (let k = 0; k < dims.length; k++) {
      f += (coords[k] as number) * stride;
      stride *= dims[k] as number;
    }
    out.set(src.subarray(f * size, f * size + size), j * size);
  }
  return out;
}

class Tuple {
  constructor(readonly items: unknown[]) {}
}

/** The header's Python dict literal, tokenised with regular expressions. */
function headerDict(text: string): Record<string, unknown> {
  const tokens: string[] = [];
  const re =
    /[ \t\n\r\f]*(?:('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")|([+-]?(?:0+|[1-9]\d*)[lL]?)(?![\w])|(True|False|None)(?![\w])|([{}()[\]:,]))/y;
  let at = 0;
  while (at < text.length) {
    if (/^[ \t\n\r\f]*$/.test(text.slice(at))) break;
    re.lastIndex = at;
    const m = re.exec(text);
    if (m === null) reject('token');
    tokens.push((m as RegExpExecArray)[0].trim());
    at = re.lastIndex;
  }
  let i = 0;
  const value = (): unknown => {
    const t = tokens[i++];
    if (t === undefined) return reject('eof');
    if (t[0] === "'" || t[0] === '"')
      return t
        .slice(1, -1)
        .replace(/\\(.)/g, (_, ch: string) =>
          ch === 'n' ? '\n' : ch === 't' ? '\t' : ch === '0' ? '\0' : ch,
        );
    if (/^[+-]?\d/.test(t)) return Number.parseInt(t, 10);
    if (t === 'True' || t === 'False') return t === 'True';
    if (t === 'None') return null;
    if (t === '{') {
      const d: Record<string, unknown> = {};
      while (tokens[i] !== '}') {
        const k = value();
        if (typeof k !== 'string' || tokens[i++] !== ':') reject('dict');
        d[k as string] = value();
        if (tokens[i] === ',') i++;
        else if (tokens[i] !== '}') reject('dict sep');
      }
      i++;
      return d;
    }
    if (t === '(' || t === '[') {
      const close = t === '(' ? ')' : ']';
      const items: unknown[] = [];
      let comma = false;
      while (tokens[i] !== close) {
        items.push(value());
        if (tokens[i] === ',') {
          comma = true;
          i++;
        } else if (tokens[i] !== close) reject('seq sep');
      }
      i++;
      if (t === '(' && items.length === 1 && !comma) return items[0];
      return t === '(' ? new Tuple(items) : items;
    }
    return reject(`unexpected ${t}`);
  };
  const v = value();
  if (i !== tokens.length) reject('trailing tokens');
  if (typeof v !== 'object' || v === null || Array.isArray(v) || v instanceof Tuple)
    return reject('not a dict');
  for (const x of Object.values(v)) if (typeof x === 'number' && !Number.isSafeInteger(x)) reject('int');
  return v as Record<string, unknown>;
}

// ---- zip / .npz --------------------------------------------------------------------------------

export function refNpz(b: Uint8Array): RefFile {
  const members = refZip(b);
  const arrays: RefArray[] = [];
  const names: string[] = [];
  for (const m of members) {
    if (!m.name.endsWith('.npy')) continue;
    arrays.push(refNpy(m.data));
    names.push(m.name.slice(0, -4));
  }
  return { arrays, names };
}

interface RefMember {
  name: string;
  data: Uint8Array;
}

function refZip(b: Uint8Array): RefMember[] {
  let eocd = -1;
  for (let i = b.length - 22; i >= 0 && i >= b.length - 22 - 0xffff; i--) {
    const sig = new Cursor(b, i).uint(4);
    if (sig === 0x06054b50 && i + 22 + new Cursor(b, i + 20).uint(2) === b.length) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) reject('no eocd');
  const e = new Cursor(b, eocd + 4);
  if (e.uint(2) !== 0 || e.uint(2) !== 0) reject('disk');
  const onDisk = e.uint(2);
  let count = e.uint(2);
  let cdSize = e.uint(4);
  let cdOffset = e.uint(4);
  if (onDisk !== count) reject('counts');
  let cdEnd = eocd;
  const locatorThere = eocd >= 20 && new Cursor(b, eocd - 20).uint(4) === 0x07064b50;
  if (count === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff || locatorThere) {
    if (!locatorThere) reject('no locator');
    const loc = new Cursor(b, eocd - 16);
    if (loc.uint(4) !== 0) reject('disk');
    const at = loc.uint(8);
    if (loc.uint(4) !== 1) reject('disks');
    const z = new Cursor(b.subarray(0, eocd - 20), at);
    if (z.uint(4) !== 0x06064b50) reject('zip64 sig');
    if (at + 12 + z.uint(8) !== eocd - 20) reject('zip64 size');
    z.bytes(4);
    if (z.uint(4) !== 0 || z.uint(4) !== 0) reject('disk');
    const on64 = z.uint(8);
    const count64 = z.uint(8);
    const size64 = z.uint(8);
    const offset64 = z.uint(8);
    if (on64 !== count64) reject('counts');
    if ((count !== 0xffff && count !== count64) || (cdSize !== 0xffffffff && cdSize !== size64)) reject('64');
    if (cdOffset !== 0xffffffff && cdOffset !== offset64) reject('64');
    [count, cdSize, cdOffset, cdEnd] = [count64, size64, offset64, at];
  }
  if (cdOffset + cdSize !== cdEnd) reject('cd extent');
  const c = new Cursor(b.subarray(0, cdEnd), cdOffset);
  const entries: {
    name: string;
    raw: Uint8Array;
    flags: number;
    method: number;
    crc: number;
    csize: number;
    usize: number;
    offset: number;
  }[] = [];
  for (let i = 0; i < count; i++) {
    if (c.uint(4) !== 0x02014b50) reject('cd sig');
    c.bytes(4);
    const flags = c.uint(2);
    const method = c.uint(2);
    c.bytes(4);
    const crc = c.uint(4);
    let csize = c.uint(4);
    let usize = c.uint(4);
    const nl = c.uint(2);
    const xl = c.uint(2);
    const cl = c.uint(2);
    let disk = c.uint(2);
    c.bytes(6);
    let offset = c.uint(4);
    const raw = c.bytes(nl);
    const z64 = extra64(c.bytes(xl));
    if (z64 !== null) {
      if (usize === 0xffffffff) usize = z64.uint(8);
      if (csize === 0xffffffff) csize = z64.uint(8);
      if (offset === 0xffffffff) offset = z64.uint(8);
      if (disk === 0xffff) disk = z64.uint(4);
    }
    c.bytes(cl);
    let name = '';
    try {
      name = new TextDecoder('utf-8', { fatal: true }).decode(raw);
    } catch {
      reject('name');
    }
    if (disk !== 0 || (flags & 0x41) !== 0 || (method !== 0 && method !== 8)) reject('entry');
    if (method === 0 && csize !== usize) reject('stored sizes');
    if (method === 8 && usize > csize * 1032 + 1024) reject('ratio');
    if (entries.some((x) => x.name === name)) reject('duplicate');
    entries.push({ name, raw, flags, method, crc, csize, usize, offset });
  }
  if (c.left !== 0) reject('cd left');
  const extents: [number, number][] = [];
  const out: RefMember[] = [];
  for (const m of entries) {
    const l = new Cursor(b, m.offset);
    if (l.uint(4) !== 0x04034b50) reject('local sig');
    l.bytes(2);
    const flags = l.uint(2);
    const method = l.uint(2);
    l.bytes(4);
    const crc = l.uint(4);
    let csize = l.uint(4);
    let usize = l.uint(4);
    const nl = l.uint(2);
    const xl = l.uint(2);
    const raw = l.bytes(nl);
    const z64 = extra64(l.bytes(xl));
    if (flags !== m.flags || method !== m.method || raw.length !== m.raw.length) reject('local');
    if (!raw.every((x, i) => x === m.raw[i])) reject('local name');
    if (z64 !== null && (usize === 0xffffffff || csize === 0xffffffff)) {
      const u = z64.uint(8);
      const c2 = z64.uint(8);
      if ((usize !== 0xffffffff && usize !== u) || (csize !== 0xffffffff && csize !== c2))
        reject('zip64 sizes');
      usize = u;
      csize = c2;
    }
    const descriptor = (m.flags & 8) !== 0;
    if (!(descriptor && crc === 0 && csize === 0 && usize === 0)) {
      if (crc !== m.crc || csize !== m.csize || usize !== m.usize) reject('local values');
    }
    const dataAt = l.pos;
    const stored = l.bytes(m.csize);
    if (descriptor) {
      const w = z64 !== null ? 8 : 4;
      const at = l.pos;
      const tryAt = (p: number): number | null => {
        const d = new Cursor(b, p);
        if (d.left < 4 + 2 * w) return null;
        return d.uint(4) === m.crc && d.uint(w) === m.csize && d.uint(w) === m.usize ? d.pos : null;
      };
      const signed = l.left >= 4 && l.uint(4) === 0x08074b50 ? tryAt(at + 4) : null;
      const end = signed ?? tryAt(at);
      if (end === null) reject('descriptor');
      l.pos = end as number;
    }
    extents.push([m.offset, l.pos]);
    let data: Uint8Array;
    if (m.method === 0) data = stored;
    else {
      let r: { buffer: Buffer; engine: { bytesWritten: number } };
      try {
        r = inflateRawSync(stored, { info: true }) as unknown as typeof r;
      } catch {
        return reject('inflate');
      }
      if (r.engine.bytesWritten !== m.csize || r.buffer.length !== m.usize) reject('inflate size');
      data = new Uint8Array(r.buffer);
    }
    if (zcrc32(data) !== m.crc) reject('crc');
    void dataAt;
    out.push({ name: m.name, data });
  }
  extents.sort((x, y) => x[0] - y[0]);
  let expected = 0;
  for (const [from, to] of extents) {
    if (from !== expected) reject('layout');
    expected = to;
  }
  if (expected !== cdOffset) reject('layout end');
  return out;
}

function extra64(x: Uint8Array): Cursor | null {
  const c = new Cursor(x);
  let found: Cursor | null = null;
  while (c.left > 0) {
    const id = c.uint(2);
    const body = c.bytes(c.uint(2));
    if (id === 1) {
      if (found !== null) reject('two zip64');
      found = new Cursor(body);
    }
  }
  return found;
}

// ---- gzip --------------------------------------------------------------------------------------

/** RFC 1952: one or more members, nothing after the last. */
export function refGunzip(b: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [];
  let pos = 0;
  do {
    const c = new Cursor(b, pos);
    const start = pos;
    if (c.uint(1) !== 0x1f || c.uint(1) !== 0x8b || c.uint(1) !== 8) reject('gzip magic');
    const flg = c.uint(1);
    if (flg & 0xe0) reject('reserved flags');
    c.bytes(6);
    if (flg & 4) c.bytes(c.uint(2));
    for (const f of [8, 16]) {
      if (flg & f) {
        const nul = b.indexOf(0, c.pos);
        if (nul < 0) reject('unterminated');
        c.pos = nul + 1;
      }
    }
    if (flg & 2) {
      const want = c.uint(2);
      if (want !== (zcrc32(b.subarray(start, c.pos - 2)) & 0xffff)) reject('hcrc');
    }
    let r: { buffer: Buffer; engine: { bytesWritten: number } };
    try {
      r = inflateRawSync(b.subarray(c.pos), { info: true }) as unknown as typeof r;
    } catch {
      return reject('inflate');
    }
    c.pos += r.engine.bytesWritten;
    if (c.uint(4) !== zcrc32(r.buffer) || c.uint(4) !== r.buffer.length % 2 ** 32) reject('trailer');
    parts.push(new Uint8Array(r.buffer));
    pos = c.pos;
  } while (pos < b.length);
  const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
