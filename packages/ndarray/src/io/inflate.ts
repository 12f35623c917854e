/**
 * Raw DEFLATE decoding (RFC 1951) for `.npz` files written by `numpy.savez_compressed`, which
 * MXNet's libzip-based loader also reads. Synchronous and dependency-free, so `loadNpz` stays a plain
 * function in browsers too (DecompressionStream is async; node:zlib is Node-only). It follows the
 * canonical-Huffman scheme of zlib's reference decoder "puff": one bit at a time, which is simple
 * and fast enough for parameter files. Any malformed stream fails through `fail`.
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

interface Huffman {
  readonly count: Uint16Array;
  readonly symbol: Uint16Array;
}

/** Canonical Huffman table from code lengths; null when the lengths are over-subscribed. */
function buildHuffman(lengths: ArrayLike<number>): Huffman | null {
  const count = new Uint16Array(MAXBITS + 1);
  const symbol = new Uint16Array(lengths.length);
  for (let s = 0; s < lengths.length; s++) {
    const l = lengths[s] as number;
    count[l] = (count[l] as number) + 1;
  }
  let left = 1;
  for (let len = 1; len <= MAXBITS; len++) {
    left = left * 2 - (count[len] as number);
    if (left < 0) return null;
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

/** Inflates `src` (raw deflate, no zlib header) into exactly `size` bytes. */
export function inflateRaw(src: Uint8Array, size: number, fail: (message: string) => Error): Uint8Array {
  const out = new Uint8Array(size);
  let outPos = 0;
  let inPos = 0;
  let bitBuf = 0;
  let bitCnt = 0;

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

  const put = (byte: number): void => {
    if (outPos >= size) throw fail(`more than the ${size} bytes the zip entry declares`);
    out[outPos++] = byte;
  };

  const codes = (lit: Huffman, dist: Huffman): void => {
    for (;;) {
      const sym = decode(lit);
      if (sym < 256) put(sym);
      else if (sym === 256) return;
      else {
        const li = sym - 257;
        if (li >= 29) throw fail(`invalid length symbol ${sym}`);
        const len = (LEN_BASE[li] as number) + bits(LEN_EXTRA[li] as number);
        const di = decode(dist);
        if (di >= 30) throw fail(`invalid distance symbol ${di}`);
        const d = (DIST_BASE[di] as number) + bits(DIST_EXTRA[di] as number);
        if (d > outPos) throw fail(`distance ${d} reaches before the start of the output`);
        for (let k = 0; k < len; k++) put(out[outPos - d] as number);
      }
    }
  };

  let fixed: { lit: Huffman; dist: Huffman } | null = null;
  let last = 0;
  while (last === 0) {
    last = bits(1);
    const type = bits(2);
    if (type === 0) {
      bitBuf = 0;
      bitCnt = 0;
      if (inPos + 4 > src.length) throw fail('the stream ends early');
      const len = (src[inPos] as number) | ((src[inPos + 1] as number) << 8);
      const nlen = (src[inPos + 2] as number) | ((src[inPos + 3] as number) << 8);
      inPos += 4;
      if (len !== (~nlen & 0xffff)) throw fail('stored block length check failed');
      if (inPos + len > src.length) throw fail('the stream ends early');
      for (let k = 0; k < len; k++) put(src[inPos + k] as number);
      inPos += len;
    } else if (type === 1) {
      if (fixed === null) {
        const l = new Uint8Array(288);
        l.fill(8, 0, 144).fill(9, 144, 256).fill(7, 256, 280).fill(8, 280, 288);
        fixed = {
          lit: buildHuffman(l) as Huffman,
          dist: buildHuffman(new Uint8Array(30).fill(5)) as Huffman,
        };
      }
      codes(fixed.lit, fixed.dist);
    } else if (type === 2) {
      const nlen = bits(5) + 257;
      const ndist = bits(5) + 1;
      const ncode = bits(4) + 4;
      if (nlen > 286 || ndist > 30) throw fail('bad dynamic block counts');
      const cl = new Uint8Array(19);
      for (let k = 0; k < ncode; k++) cl[CLEN_ORDER[k] as number] = bits(3);
      const clh = buildHuffman(cl);
      if (clh === null) throw fail('bad code-length code');
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
      const lit = buildHuffman(lengths.subarray(0, nlen));
      const dist = buildHuffman(lengths.subarray(nlen));
      if (lit === null || dist === null) throw fail('over-subscribed Huffman code');
      codes(lit, dist);
    } else {
      throw fail('invalid block type 3');
    }
  }
  if (outPos !== size) throw fail(`inflated to ${outPos} bytes, the zip entry declares ${size}`);
  return out;
}
