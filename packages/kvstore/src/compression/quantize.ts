/**
 * MXNet's gradient compression kernels (src/kvstore/gradient_compression-inl.h) as host functions
 * over Float32Array: what the store's quantize/dequantize operators run, and what a distributed
 * transport will run on the bytes it sends and receives.
 *
 * The packed form is the memory of MXNet's compressed float32 array, as bytes: 2-bit packs 16
 * values per float32 word (element i in byte i >> 2, masks 0xC0/0x30/0x0C/0x03 for "11" = +t and
 * 0x80/0x20/0x08/0x02 for "10" = -t), 1-bit packs 32 (bit 0x80 >> (i & 7) of byte i >> 3: set = +1,
 * clear = -1). MXNet addresses bytes, so the layout does not depend on endianness.
 *
 * The threshold is MXNet's `float`: it is rounded to float32 once, and every residual update is a
 * float32 operation (a JS double add of two float32 values rounded back on store is the float32
 * add), so results equal MXNet's bit for bit.
 */
import { MXNetError } from '@mx/base';

/** The compression types MXNet has (`GradientCompressionParam.type`). */
export type CompressionType = '1bit' | '2bit';

const POS_BITS = [0xc0, 0x30, 0x0c, 0x03] as const;
const NEG_BITS = [0x80, 0x20, 0x08, 0x02] as const;

/** Values per compressed float32 word (MXNet `GetCompressionFactor`). */
export function compressionFactor(type: CompressionType): number {
  return type === '2bit' ? 16 : 32;
}

/** Float32 words of the compressed form of `n` values (MXNet `GetCompressedSize`). */
export function compressedSize(n: number, type: CompressionType): number {
  return Math.ceil(n / compressionFactor(type));
}

function checkSizes(
  op: string,
  grad: Float32Array,
  residual: Float32Array,
  out: Uint8Array,
  type: CompressionType,
) {
  if (residual.length !== grad.length) {
    throw new MXNetError(`residual has ${residual.length} values, the gradient ${grad.length}`, {
      op,
      hint: 'keep one residual array per gradient, of its size',
    });
  }
  const bytes = 4 * compressedSize(grad.length, type);
  if (out.length !== bytes) {
    throw new MXNetError(
      `the packed output needs ${bytes} bytes for ${grad.length} values, got ${out.length}`,
      {
        op,
        hint: `allocate 4 * compressedSize(n, '${type}') bytes`,
      },
    );
  }
}

/**
 * 2-bit quantize (MXNet `quantize_2bit`): `residual += grad`; a residual >= t is sent as +t and
 * t is subtracted, one <= -t as -t and t added, anything else as 0. Updates `residual` in place
 * and returns the packed bytes (written into `out` when given).
 */
export function quantize2Bit(
  grad: Float32Array,
  residual: Float32Array,
  threshold: number,
  out: Uint8Array = new Uint8Array(4 * compressedSize(grad.length, '2bit')),
): Uint8Array {
  checkSizes('quantize2Bit', grad, residual, out, '2bit');
  const pos = Math.fround(threshold);
  const neg = Math.fround(-threshold);
  out.fill(0);
  for (let i = 0; i < grad.length; i++) {
    residual[i] = (residual[i] as number) + (grad[i] as number);
    const r = residual[i] as number;
    if (r >= pos) {
      out[i >> 2] = (out[i >> 2] as number) | (POS_BITS[i & 3] as number);
      residual[i] = r - pos;
    } else if (r <= neg) {
      out[i >> 2] = (out[i >> 2] as number) | (NEG_BITS[i & 3] as number);
      residual[i] = r - neg;
    }
  }
  return out;
}

/** 2-bit dequantize (MXNet `dequantize_2bit`): `11` → +t, `10` → -t, anything else → 0. */
export function dequantize2Bit(
  packed: Uint8Array,
  n: number,
  threshold: number,
  out: Float32Array = new Float32Array(n),
): Float32Array {
  checkPacked('dequantize2Bit', packed, n, out, '2bit');
  const pos = Math.fround(threshold);
  const neg = Math.fround(-threshold);
  for (let i = 0; i < n; i++) {
    const masked = (packed[i >> 2] as number) & (POS_BITS[i & 3] as number);
    out[i] = masked === POS_BITS[i & 3] ? pos : masked === NEG_BITS[i & 3] ? neg : 0;
  }
  return out;
}

/**
 * 1-bit quantize (MXNet `quantize_1bit`): `residual += grad`; a residual > t is sent as +1 and 1
 * is subtracted, anything else as -1 and 1 is added. Updates `residual` in place.
 */
export function quantize1Bit(
  grad: Float32Array,
  residual: Float32Array,
  threshold: number,
  out: Uint8Array = new Uint8Array(4 * compressedSize(grad.length, '1bit')),
): Uint8Array {
  checkSizes('quantize1Bit', grad, residual, out, '1bit');
  const t = Math.fround(threshold);
  out.fill(0);
  for (let i = 0; i < grad.length; i++) {
    residual[i] = (residual[i] as number) + (grad[i] as number);
    const r = residual[i] as number;
    if (r > t) {
      out[i >> 3] = (out[i >> 3] as number) | (0x80 >> (i & 7));
      residual[i] = r - 1;
    } else {
      residual[i] = r + 1;
    }
  }
  return out;
}

/** 1-bit dequantize (MXNet `dequantize_1bit`): a set bit → +1, a clear one → -1. */
export function dequantize1Bit(
  packed: Uint8Array,
  n: number,
  out: Float32Array = new Float32Array(n),
): Float32Array {
  checkPacked('dequantize1Bit', packed, n, out, '1bit');
  for (let i = 0; i < n; i++) out[i] = (packed[i >> 3] as number) & (0x80 >> (i & 7)) ? 1 : -1;
  return out;
}

function checkPacked(op: string, packed: Uint8Array, n: number, out: Float32Array, type: CompressionType) {
  const bytes = 4 * compressedSize(n, type);
  if (packed.length !== bytes || out.length !== n) {
    throw new MXNetError(
      `${n} values need ${bytes} packed bytes and an output of ${n}, got ${packed.length} bytes and ${out.length}`,
      { op, hint: `allocate 4 * compressedSize(n, '${type}') bytes` },
    );
  }
}

/** Quantize with either type (see quantize2Bit / quantize1Bit). */
export function quantize(
  type: CompressionType,
  grad: Float32Array,
  residual: Float32Array,
  threshold: number,
  out?: Uint8Array,
): Uint8Array {
  return type === '2bit'
    ? quantize2Bit(grad, residual, threshold, out)
    : quantize1Bit(grad, residual, threshold, out);
}

/** Dequantize with either type (1-bit ignores the threshold, as MXNet does). */
export function dequantize(
  type: CompressionType,
  packed: Uint8Array,
  n: number,
  threshold: number,
  out?: Float32Array,
): Float32Array {
  return type === '2bit' ? dequantize2Bit(packed, n, threshold, out) : dequantize1Bit(packed, n, out);
}
