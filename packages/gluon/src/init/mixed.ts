/**
 * MXNet's Mixed initializer: a list of (regular expression, initializer) pairs; a parameter goes to
 * the first initializer whose pattern matches the start of its name (Python `re.match`). MXNet's
 * Mixed is not registered and cannot be dumped; here it is an Initializer like the others, so it can
 * sit in an `__init__` attribute and round-trip through `dumps()` / `create()`.
 */
import { MXNetError } from '@mx/base';
import type { NDArray } from '@mx/ndarray';
import { type InitDescLike, Initializer } from './initializer.js';
import { parsePythonJson } from './python-json.js';

/** Route parameters to initializers by name. */
export class Mixed extends Initializer {
  readonly registeredName = 'mixed';
  readonly patterns: readonly string[];
  readonly initializers: readonly Initializer[];
  readonly #regexps: readonly RegExp[];

  /**
   * @param patterns regular expressions (JavaScript syntax) matched at the start of the name
   * @param initializers one per pattern
   */
  constructor(patterns: readonly string[], initializers: readonly Initializer[]) {
    super();
    if (!Array.isArray(patterns) || !Array.isArray(initializers) || patterns.length !== initializers.length) {
      throw new MXNetError(
        `patterns and initializers must be lists of the same length, got ${String(patterns?.length)} and ${String(initializers?.length)}`,
        { op: 'init.Mixed', hint: 'give one initializer per pattern' },
      );
    }
    this.#regexps = patterns.map((p, i) => {
      if (typeof p !== 'string') {
        throw new MXNetError(`pattern ${i} must be a string, got ${String(p)}`, { op: 'init.Mixed' });
      }
      try {
        return new RegExp(`^(?:${p})`);
      } catch (e) {
        throw new MXNetError(`pattern ${i} (${p}) is not a valid regular expression`, {
          op: 'init.Mixed',
          cause: e,
        });
      }
    });
    initializers.forEach((init, i) => {
      if (!(init instanceof Initializer)) {
        throw new MXNetError(`initializer ${i} is not an Initializer`, {
          op: 'init.Mixed',
          hint: 'build them first, e.g. with init.create(name)',
        });
      }
    });
    this.patterns = Object.freeze([...patterns]);
    this.initializers = Object.freeze([...initializers]);
  }

  override get kwargs(): Readonly<Record<string, unknown>> {
    return Object.freeze({
      patterns: [...this.patterns],
      initializers: this.initializers.map((i) => parsePythonJson(i.dumps())),
    });
  }

  /** The initializer for a name (the first pattern that matches its start). */
  select(name: string): Initializer {
    const i = this.#regexps.findIndex((re) => re.test(name));
    if (i < 0) {
      throw new MXNetError(`Parameter name ${name} did not match any pattern`, {
        op: 'init.Mixed',
        params: { patterns: this.patterns },
        hint: "add a '.*' pattern at the end with a default initializer",
      });
    }
    return this.initializers[i] as Initializer;
  }

  override init(desc: InitDescLike | string, arr: NDArray): void {
    this.select(typeof desc === 'string' ? desc : desc.name).init(desc, arr);
  }

  protected initWeight(name: string, arr: NDArray): void {
    this.select(name).fillWeight(name, arr);
  }
}
