/**
 * How much one load may decode, and the accounting that enforces it before anything is allocated.
 *
 * A file's sizes come from the file, so a corrupt or hostile one can ask for any amount of memory:
 * a few kilobytes of DEFLATE data can declare (or inflate to) gigabytes. Every loader therefore
 * states how many bytes it is about to produce ({@link Budget.charge}) *before* allocating them, and
 * the budget refuses once the total passes the smaller of two caps:
 * - `maxBytes` (default 2 GiB): an absolute cap on the bytes one load decodes;
 * - `maxExpansion` (default 1032, DEFLATE's largest possible ratio) times the input length, plus
 *   1 MiB: no honest file decodes to more than that, whatever it holds.
 * "Decoded bytes" are the array data read from uncompressed files plus the decompressed size of
 * every compressed member (an array parsed from an already counted member is not counted twice).
 * Uncompressed formats decode at most their own size, so only compressed data and lying headers
 * ever meet the caps; a trusted large file loads with a larger `maxBytes`.
 */
import { MXNetError } from '@mx/base';
import { DEFAULT_SOURCE } from './types.js';

/** Caps on what one load may decode (`nd.load`, `loadNpz`, `parseIdx`, ...). */
export interface LoadLimits {
  /** Most bytes one load may decode (array data plus decompressed members). Default 2 GiB. */
  readonly maxBytes?: number;
  /**
   * Most decoded bytes per input byte (plus 1 MiB). Default 1032, the largest ratio DEFLATE can
   * reach, so only hostile or corrupt files meet it; lower it for untrusted input.
   */
  readonly maxExpansion?: number;
}

/** Default {@link LoadLimits.maxBytes}: 2 GiB. */
export const DEFAULT_MAX_BYTES = 2 ** 31;
/** Default {@link LoadLimits.maxExpansion}: DEFLATE's largest ratio (258 bytes per 2 bits). */
export const DEFAULT_MAX_EXPANSION = 1032;
/** Slack added to the relative cap so small files are never refused for header overhead. */
const EXPANSION_SLACK = 2 ** 20;

const LIMIT_HINT =
  'the file is corrupt or crafted to exhaust memory; if you trust it, raise the cap with the load ' +
  'option maxBytes (absolute) or maxExpansion (relative to the file size)';

/** Counts the bytes one load decodes and refuses (with an MXNetError) past its cap. */
export class Budget {
  /** The cap in bytes for this load. */
  readonly limit: number;
  readonly #op: string;
  readonly #source: string | undefined;
  readonly #why: string;
  #used = 0;

  constructor(op: string, source: string | undefined, inputLength: number, limits: LoadLimits = {}) {
    const maxBytes = checkLimit(op, 'maxBytes', limits.maxBytes, DEFAULT_MAX_BYTES);
    const maxExpansion = checkLimit(op, 'maxExpansion', limits.maxExpansion, DEFAULT_MAX_EXPANSION);
    const relative = maxExpansion * inputLength + EXPANSION_SLACK;
    this.limit = Math.min(maxBytes, relative);
    this.#op = op;
    this.#source = source;
    this.#why =
      maxBytes <= relative
        ? `maxBytes ${maxBytes}`
        : `maxExpansion ${maxExpansion} x ${inputLength} input bytes + 1 MiB`;
  }

  /** Bytes counted so far. */
  get used(): number {
    return this.#used;
  }

  /** Bytes still allowed. */
  get left(): number {
    return this.limit - this.#used;
  }

  /** Counts `n` bytes about to be decoded for `what`; throws, allocating nothing, past the cap. */
  charge(n: number, what: string): void {
    if (n > this.limit - this.#used) {
      throw new MXNetError(
        `${this.#source ?? DEFAULT_SOURCE}: ${what} needs ${n} bytes, which would take this load to ` +
          `${this.#used + n} decoded bytes, over its cap of ${this.limit} (${this.#why})`,
        { op: this.#op, hint: LIMIT_HINT },
      );
    }
    this.#used += n;
  }
}

function checkLimit(op: string, name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !(value > 0) || Number.isNaN(value)) {
    throw new MXNetError(`load option ${name} must be a positive number, got ${String(value)}`, { op });
  }
  return value;
}
