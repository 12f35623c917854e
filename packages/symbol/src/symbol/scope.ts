/**
 * Naming and attribute scopes (MXNet's `mx.name.NameManager`, `mx.name.Prefix` and
 * `mx.AttrScope`).
 *
 * MXNet keeps the current manager and scope in thread-locals entered with `with`. Here they are
 * plain objects and a `SymbolApi` holds the current ones as stacks (no module state), entered with
 * a callback: `sym.prefix('net1_', () => ...)`, `sym.attrScope({ ctx_group: 'dev1' }, () => ...)`.
 * The semantics are MXNet's: a manager counts auto names per lower-cased op name (`fullyconnected0`,
 * `fullyconnected1`); a Prefix is a *new* manager (its counters start at 0) that prefixes every
 * op name, given or generated; an attribute scope entered inside another holds both (inner wins).
 */
import { MXNetError } from '@mx/base';
import { checkStringAttrs } from './attrs.js';

/** Gives op nodes their names (MXNet `NameManager`). */
export class NameManager {
  readonly #counter = new Map<string, number>();

  /**
   * The name of a new op node: `name` when given, else `<hint><n>` with a counter per hint
   * (`hint` is the lower-cased op name).
   */
  get(name: string | undefined, hint: string): string {
    if (name) return name;
    const n = this.#counter.get(hint) ?? 0;
    this.#counter.set(hint, n + 1);
    return `${hint}${n}`;
  }
}

/** A NameManager that prefixes every op name, given or generated (MXNet `mx.name.Prefix`). */
export class Prefix extends NameManager {
  readonly prefix: string;

  constructor(prefix: string) {
    super();
    if (typeof prefix !== 'string') {
      throw new MXNetError(`a name prefix must be a string, not ${typeof prefix}`, { op: 'Prefix' });
    }
    this.prefix = prefix;
  }

  override get(name: string | undefined, hint: string): string {
    return this.prefix + super.get(name, hint);
  }
}

/**
 * Attributes given to every symbol created while the scope is current (MXNet `AttrScope`).
 * Values are strings; hidden keys (`ctx_group`, `lr_mult`, ...) are stored as `__ctx_group__`...
 * on the nodes, as MXNet's C API stores them.
 */
export class AttrScope {
  readonly attrs: Readonly<Record<string, string>>;

  constructor(attrs: Readonly<Record<string, string>> = {}) {
    checkStringAttrs(attrs, 'AttrScope');
    this.attrs = Object.freeze({ ...attrs });
  }

  /** The scope's attributes updated with `attr` (MXNet `AttrScope.get`); a new object. */
  get(attr?: Readonly<Record<string, string>>): Record<string, string> {
    return { ...this.attrs, ...(attr ?? {}) };
  }

  /** This scope entered inside `outer`: outer's attributes, updated with this one's. */
  within(outer: AttrScope): AttrScope {
    return new AttrScope({ ...outer.attrs, ...this.attrs });
  }
}

/**
 * Run `fn` with `value` pushed on `stack`, popping it afterwards (also when `fn` throws). A
 * callback returning a Promise is refused: symbols are built synchronously, and a scope cannot
 * follow an `await`.
 */
export function withPushed<T, R>(stack: T[], value: T, fn: () => R, what: string): R {
  stack.push(value);
  let result: R;
  try {
    result = fn();
  } finally {
    stack.pop();
  }
  if (typeof (result as { then?: unknown } | null)?.then === 'function') {
    throw new MXNetError(`${what} callbacks must be synchronous (the callback returned a Promise)`, {
      op: what,
      hint: 'build the symbols inside the callback without await; await afterwards',
    });
  }
  return result;
}
