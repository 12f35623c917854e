/**
 * Gradient compression settings (MXNet `GradientCompression::SetParams`, `EncodeParams`,
 * `DecodeParams`): the checks and error texts of `set_gradient_compression`, and the string form a
 * distributed store sends to its servers with `kSetGradientCompression` ("2,0.500000": MXNet's
 * enum value, then the threshold as C++ `std::to_string(float)` writes it).
 */
import { MXNetError } from '@mx/base';
import type { CompressionType } from './quantize.js';

/** What `setGradientCompression` takes (MXNet's `compression_params` dict). */
export interface GradientCompressionParams {
  /** `'2bit'` or `'1bit'`. */
  readonly type: CompressionType;
  /** Default 0.5 (MXNet's default for both types); must be > 0 for 2-bit. */
  readonly threshold?: number;
}

/** MXNet's `CompressionType` enum values (kNone = 0), as sent to servers. */
const TYPE_IDS: Readonly<Record<CompressionType, number>> = Object.freeze({ '1bit': 1, '2bit': 2 });

/** A checked compression setting. */
export class GradientCompression {
  readonly type: CompressionType;
  /** The threshold as MXNet keeps it: a float32 value. */
  readonly threshold: number;

  private constructor(type: CompressionType, threshold: number) {
    this.type = type;
    this.threshold = Math.fround(threshold);
  }

  /** Check user settings (MXNet `SetParams`); an MXNetError names what is wrong. */
  static fromParams(params: GradientCompressionParams): GradientCompression {
    const op = 'setGradientCompression';
    if (params === null || typeof params !== 'object') {
      throw new MXNetError(
        `expected an object like { type: '2bit', threshold: 0.5 }, got ${String(params)}`,
        {
          op,
        },
      );
    }
    const { type, threshold = 0.5 } = params as { type?: unknown; threshold?: unknown };
    if (type === undefined) {
      throw new MXNetError('Required parameter type of string is not presented', {
        op,
        hint: "pass { type: '2bit' } or { type: '1bit' }",
      });
    }
    if (type !== '1bit' && type !== '2bit') {
      throw new MXNetError(`Unknown type for gradient compression ${String(type)}`, {
        op,
        params: { type },
        hint: "use '2bit' or '1bit'",
      });
    }
    if (typeof threshold !== 'number' || !Number.isFinite(threshold)) {
      throw new MXNetError(`threshold must be a finite number, got ${String(threshold)}`, {
        op,
        params: { type, threshold },
      });
    }
    if (type === '2bit' && !(Math.fround(threshold) > 0)) {
      throw new MXNetError('threshold must be greater than 0 for two bit compression', {
        op,
        params: { type, threshold },
      });
    }
    return new GradientCompression(type, threshold);
  }

  /** MXNet's `EncodeParams`: `"<enum>,<threshold %f>"`, e.g. `"2,0.500000"`. */
  encode(): string {
    return `${TYPE_IDS[this.type]},${this.threshold.toFixed(6)}`;
  }

  /** MXNet's `DecodeParams`; undefined for kNone (`"0"`). */
  static decode(text: string): GradientCompression | undefined {
    const [id, threshold] = text.split(',');
    const type = (Object.keys(TYPE_IDS) as CompressionType[]).find((k) => String(TYPE_IDS[k]) === id?.trim());
    if (id?.trim() === '0') return undefined;
    if (
      type === undefined ||
      (threshold !== undefined && threshold.trim() !== '' && Number.isNaN(Number(threshold)))
    ) {
      throw new MXNetError(`cannot decode gradient compression settings '${text}'`, {
        op: 'GradientCompression.decode',
        hint: "expected '<1|2>,<threshold>' as encode() writes it",
      });
    }
    return new GradientCompression(
      type,
      threshold === undefined || threshold.trim() === '' ? 0.5 : Number(threshold),
    );
  }

  /** True when both settings compress the same way. */
  equals(other: GradientCompression | undefined): boolean {
    return other !== undefined && other.type === this.type && other.threshold === this.threshold;
  }
}
