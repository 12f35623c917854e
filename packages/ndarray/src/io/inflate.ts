/**
 * Raw DEFLATE decoding (RFC 1951) for `.npz` members written by `numpy.savez_compressed` and for
 * gzip-compressed IDX files. Synchronous and dependency-free, so the loaders stay plain functions
 * in browsers too (DecompressionStream is async; node:zlib is Node-only). It follows the
 * canonical-Huffman scheme of zlib's reference decoder "puff" (one bit at a time, simple and fast
 * enough for parameter files) with zlib's strictness about incomplete codes.
 *
 * Output is bounded: the caller says how many bytes the stream may produce (the size a header
 * declares), the decoder fails as soon as it would produce more, and the output buffer grows
 * geometrically up to that bound, so neither a stream that inflates past its declared size nor a
 * header that declares far more than its stream holds makes it allocate much beyond the bytes
 * actually produced. It reports where the stream ended, so containers can insist that the
 * compressed data is consumed exactly. Any malformed stream fails through `fail`.
 *
 * {@link inflateBounded} is what the containers call: in Node, for streams of 64 KiB or more, it
 * hands the work to zlib (reached through `process.getBuiltinModule`, never imported, so browser
 * bundles stay clean) with the same bound (`maxOutputLength`) and the same end report
 * (`bytesWritten`), about eight times faster; the decoder here, whose decisions are tested to
 * match zlib's on damaged streams, serves browsers and small streams.
 */

const MAXBITS = 15;
const LEN_BASE = [
  3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195,
  227, 258,
];
const LEN_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const DIST_BASE = [
  1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097,
  6145, 8193, 12289, 16385, 24577,
];
const DIST_EXTRA = [
  0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13,
];
const CLEN_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];
/** First output buffer size when the bound is large: grown by doubling up to the bound. */
const INITIAL_OUTPUT = 1 << 16;

interface Huffman {
  readonly count: Uint16Array;
  readonly symbol: Uint16Array;
}

/**
 * Canonical Huffman table from code lengths, or a message when the lengths are not a valid code:
 * over-subscribed, or incomplete (allowed only for a single code of length 1, and for a code with no
 * symbols at all, as zlib; such a code fails only if a symbol is actually decoded with it).
 */
function buildHuffman(lengths: ArrayLike<number>, allowIncomplete: boolean): Huffman | string {
  const count = new Uint16Array(MAXBITS + 1);
  const symbol = new Uint16Array(lengths.length);
  for (let s = 0; s < lengths.length; s++) {
    const l = lengths[s] as number;
    count[l] = (count[l] as number) + 1;
  }
  let left = 1;
  for (let len = 1; len <= MAXBITS; len++) {
    left = left * 2 - (count[len] as number);
    if (left < 0) return 'over-subscribed Huffman code';
  }
  const used = lengths.length - (count[0] as number);
  if (left > 0 && used > 0 && !(allowIncomplete && used === 1 && count[1] === 1)) {
    return 'incomplete Huffman code';
  }
  const offs = new Uint16Array(MAXBITS + 2);
  for (let len = 1; len < MAXBITS; len++) offs[len + 1] = (offs[len] as number) + (count[len] as number);
  for (let s = 0; s < lengths.length; s++) {
    const l = lengths[s] as number;
    if (l === 0) continue;
    const at = offs[l] as number;
    symbol[at] = s;
    offs[l] = at + 1;
  }
  return { count, symbol };
}

/** The fixed-Huffman tables of block type 1. */
const FIXED: { readonly lit: Huffman; readonly dist: Huffman } = (() => {
  const l = new Uint8Array(288);
  l.fill(8, 0, 144).fill(9, 144, 256).fill(7, 256, 280).fill(8, 280, 288);
  return {
    lit: buildHuffman(l, false) as Huffman,
    // 32 five-bit codes (30 and 31 are invalid symbols, rejected when decoded), a complete code.
    dist: buildHuffman(new Uint8Array(32).fill(5), false) as Huffman,
  };
})();

export interface InflateOptions {
  /** Offset of the stream in `src` (default 0). */
  readonly start?: number;
  /** The most bytes the stream may produce. */
  readonly maxOutput: number;
  /** What `maxOutput` is, for the error, e.g. "the size its zip entry declares". */
  readonly limitName: string;
  /** The whole error message when the stream passes `maxOutput` (default: built from limitName). */
  readonly overflowMessage?: string;
  /** Stop once `maxOutput` bytes are produced and return them, instead of failing. */
  readonly stopAtMax?: boolean;
  /** Turns a message into the error to throw (the caller adds the file, entry and offset). */
  readonly fail: (message: string) => Error;
}

export interface Inflated {
  /** The decompressed bytes. */
  readonly data: Uint8Array;
  /** Offset in `src` just after the stream's last byte (its final block ends in that byte). */
  readonly end: number;
  /** False when `stopAtMax` stopped the decoder before the stream's end. */
  readonly complete: boolean;
}

/** Thrown inside the decoder to unwind when `stopAtMax` is reached. */
const STOP = Symbol('stop');

/** Inflates the raw DEFLATE stream (no zlib or gzip wrapper) at `src[start]`. */
export function inflateRaw(src: Uint8Array, options: InflateOptions): Inflated {
  const { maxOutput, fail } = options;
  let inPos = options.start ?? 0;
  let bitBuf = 0;
  let bitCnt = 0;
  let out = new Uint8Array(Math.min(maxOutput, Math.max(INITIAL_OUTPUT, 4 * (src.length - inPos))));
  let outPos = 0;

  const bits = (need: number): number => {
    let val = bitBuf;
    while (bitCnt < need) {
      if (inPos >= src.length) throw fail('the stream ends early');
      val |= (src[inPos++] as number) << bitCnt;
      bitCnt += 8;
    }
    bitBuf = val >>> need;
    bitCnt -= need;
    return val & ((1 << need) - 1);
  };

  const decode = (h: Huffman): number => {
    let code = 0;
    let first = 0;
    let index = 0;
    for (let len = 1; len <= MAXBITS; len++) {
      code |= bits(1);
      const count = h.count[len] as number;
      if (code - count < first) return h.symbol[index + (code - first)] as number;
      index += count;
      first = (first + count) << 1;
      code <<= 1;
    }
    throw fail('invalid Huffman code');
  };

  /** Called when the buffer is full: grows it, or stops/fails at the bound. */
  const grow = (): void => {
    if (out.length >= maxOutput) {
      if (options.stopAtMax) throw STOP;
      throw fail(
        options.overflowMessage ?? `it inflates to more than ${maxOutput} bytes, ${options.limitName}`,
      );
    }
    const grown = new Uint8Array(Math.min(maxOutput, out.length * 2));
    grown.set(out.subarray(0, outPos));
    out = grown;
  };

  const copyMatch = (len: number, d: number): void => {
    let from = outPos - d;
    for (let k = 0; k < len; k++) {
      if (outPos === out.length) grow();
      out[outPos++] = out[from++] as number;
    }
  };

  const codes = (lit: Huffman, dist: Huffman): void => {
    for (;;) {
      const sym = decode(lit);
      if (sym < 256) {
        if (outPos === out.length) grow();
        out[outPos++] = sym;
      } else if (sym === 256) {
        return;
      } else {
        const li = sym - 257;
        if (li >= 29) throw fail(`invalid length symbol ${sym}`);
        const len = (LEN_BASE[li] as number) + bits(LEN_EXTRA[li] as number);
        const di = decode(dist);
        if (di >= 30) throw fail(`invalid distance symbol ${di}`);
        const d = (DIST_BASE[di] as number) + bits(DIST_EXTRA[di] as number);
        if (d > outPos) throw fail(`distance ${d} reaches before the start of the output`);
        copyMatch(len, d);
      }
    }
  };

  const block = (type: number): void => {
    if (type === 0) {
      bitBuf = 0;
      bitCnt = 0;
      if (inPos + 4 > src.length) throw fail('the stream ends early');
      const len = (src[inPos] as number) | ((src[inPos + 1] as number) << 8);
      const nlen = (src[inPos + 2] as number) | ((src[inPos + 3] as number) << 8);
      inPos += 4;
      if (len !== (~nlen & 0xffff)) throw fail('stored block length check failed');
      if (inPos + len > src.length) throw fail('the stream ends early');
      const end = inPos + len;
      while (inPos < end) {
        if (outPos === out.length) grow();
        const n = Math.min(end - inPos, out.length - outPos);
        out.set(src.subarray(inPos, inPos + n), outPos);
        outPos += n;
        inPos += n;
      }
    } else if (type === 1) {
      codes(FIXED.lit, FIXED.dist);
    } else if (type === 2) {
      const nlen = bits(5) + 257;
      const ndist = bits(5) + 1;
      const ncode = bits(4) + 4;
      if (nlen > 286 || ndist > 30) throw fail('bad dynamic block counts');
      const cl = new Uint8Array(19);
      for (let k = 0; k < ncode; k++) cl[CLEN_ORDER[k] as number] = bits(3);
      const clh = buildHuffman(cl, false);
      if (typeof clh === 'string') throw fail(`bad code-length code: ${clh}`);
      const lengths = new Uint8Array(nlen + ndist);
      let k = 0;
      while (k < nlen + ndist) {
        const sym = decode(clh);
        if (sym < 16) {
          lengths[k++] = sym;
          continue;
        }
        let value = 0;
        let repeat: number;
        if (sym === 16) {
          if (k === 0) throw fail('repeat with no previous length');
          value = lengths[k - 1] as number;
          repeat = 3 + bits(2);
        } else if (sym === 17) repeat = 3 + bits(3);
        else repeat = 11 + bits(7);
        if (k + repeat > nlen + ndist) throw fail('too many code lengths');
        while (repeat-- > 0) lengths[k++] = value;
      }
      if (lengths[256] === 0) throw fail('no end-of-block code');
      const lit = buildHuffman(lengths.subarray(0, nlen), true);
      if (typeof lit === 'string') throw fail(`bad literal/length code: ${lit}`);
      const dist = buildHuffman(lengths.subarray(nlen), true);
      if (typeof dist === 'string') throw fail(`bad distance code: ${dist}`);
      codes(lit, dist);
    } else {
      throw fail('invalid block type 3');
    }
  };

  let complete = true;
  try {
    let last = 0;
    while (last === 0) {
      last = bits(1);
      block(bits(2));
    }
  } catch (e) {
    if (e !== STOP) throw e;
    complete = false;
  }
  const data = outPos === out.length ? out : out.slice(0, outPos);
  return { data, end: inPos, complete };
}

/** Compressed streams at least this long go to node:zlib where it exists. */
const ZLIB_MIN_INPUT = 1 << 16;

interface NodeZlib {
  inflateRawSync(
    data: Uint8Array,
    options: { maxOutputLength: number; info: true },
  ): { buffer: Uint8Array; engine: { bytesWritten: number } };
}

function nodeModule<T>(id: string): T | undefined {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  return proc?.getBuiltinModule?.(id) as T | undefined;
}

/** {@link inflateRaw}, through node:zlib for large streams in Node (same bound, same result). */
export function inflateBounded(src: Uint8Array, options: InflateOptions): Inflated {
  const start = options.start ?? 0;
  const zlib =
    src.length - start >= ZLIB_MIN_INPUT && !options.stopAtMax
      ? nodeModule<NodeZlib>('node:zlib')
      : undefined;
  const maxLength =
    nodeModule<{ constants: { MAX_LENGTH: number } }>('node:buffer')?.constants.MAX_LENGTH ?? 0;
  if (zlib === undefined || options.maxOutput < 1 || options.maxOutput > maxLength)
    return inflateRaw(src, options);
  let r: { buffer: Uint8Array; engine: { bytesWritten: number } };
  try {
    r = zlib.inflateRawSync(src.subarray(start), { maxOutputLength: options.maxOutput, info: true });
  } catch (e) {
    if ((e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw options.fail(
        options.overflowMessage ??
          `it inflates to more than ${options.maxOutput} bytes, ${options.limitName}`,
      );
    }
    throw options.fail(
      (e as Error).message === 'unexpected end of file' ? 'the stream ends early' : (e as Error).message,
    );
  }
  const b = r.buffer;
  // A small result may share Node's buffer pool: copy it out so it owns its memory.
  const data =
    b.byteOffset === 0 && b.buffer.byteLength === b.length ? new Uint8Array(b.buffer) : new Uint8Array(b);
  return { data, end: start + r.engine.bytesWritten, complete: true };
}
