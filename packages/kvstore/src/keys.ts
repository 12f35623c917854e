/**
 * Keys and the key/value argument forms of MXNet's KVStore (`_ctype_key_value` in
 * python/mxnet/kvstore/base.py), checked before a store does anything:
 *
 * - one key and one array, or one key and a list of arrays (a push sums them, a pull fills each);
 * - a list of keys and a list of the same length whose entries are arrays or lists of arrays.
 *
 * Keys are integers or strings, one kind per call (MXNet: "inconsistent types of keys detected")
 * and per store. A store gives every key an integer id as MXNet's KVStoreLocal does: an int key is
 * its own id, string keys are numbered in the order they are first initialised (what a distributed
 * store sends on the wire, so every worker must initialise in the same order).
 */
import { type DTypeName, MXNetError, type Shape } from '@mx/base';
import { NDArray } from '@mx/ndarray';

/** A KVStore key: an integer or a string (MXNet allows either, one kind per store). */
export type KVKey = number | string;

export interface KeyEntry {
  readonly key: KVKey;
  /** MXNet's integer id: the int key itself, or the init order of a string key. */
  readonly id: number;
  readonly shape: Shape;
  readonly dtype: DTypeName;
  /** The storage type of the stored value, fixed by the init value. */
  readonly stype: KeyStorageType;
}

/** The storage types a key can hold (MXNet's stores take dense and row_sparse values). */
export type KeyStorageType = 'default' | 'row_sparse';

/** One key or a list of keys. */
export type KeysArg = KVKey | readonly KVKey[];

/** Arrays for the keys: one array, a list of arrays, or (for a key list) a list of arrays or lists. */
export type ValuesArg = NDArray | readonly NDArray[] | readonly (NDArray | readonly NDArray[])[];

/** The kind of a key ('int' or 'str', as MXNet's `use_str_keys`). */
export type KeyKind = 'int' | 'str';

/** A key with every array given for it in one call, in the order they were given. */
export interface KeyArrays {
  readonly key: KVKey;
  readonly arrays: readonly NDArray[];
}

/** How a key is written in messages: `3` or `'weight'`. */
export function describeKey(key: KVKey): string {
  return typeof key === 'string' ? `'${key}'` : String(key);
}

export function keyKind(key: KVKey): KeyKind {
  return typeof key === 'string' ? 'str' : 'int';
}

function checkKey(op: string, key: unknown): KVKey {
  if (typeof key === 'string') return key;
  if (typeof key === 'number' && Number.isInteger(key) && key >= -(2 ** 31) && key < 2 ** 31) return key;
  throw new MXNetError(`a key must be an int32 integer or a string, got ${String(key)} (${typeof key})`, {
    op,
    hint: "use keys like 3 or 'weight'",
  });
}

function checkArray(op: string, a: unknown, where: string): NDArray {
  if (!(a instanceof NDArray)) {
    throw new MXNetError(`${where} must be an NDArray, got ${a === null ? 'null' : typeof a}`, {
      op,
      hint: 'pass NDArrays (or lists of NDArrays, one list per key)',
    });
  }
  if (a.isDisposed) {
    throw new MXNetError(`${where} (${a.describe()}) was disposed`, {
      op,
      shapes: [a.shape],
      dtypes: [a.dtype],
      device: a.ctx.toString(),
      hint: 'keep the array alive until the store has used it',
    });
  }
  return a;
}

function arraysFor(op: string, key: KVKey, v: unknown, what: string): NDArray[] {
  const where = `the ${what} for key ${describeKey(key)}`;
  if (Array.isArray(v)) {
    if (v.length === 0)
      throw new MXNetError(`${where} is an empty list`, { op, hint: 'give at least one array' });
    return v.map((a, i) => checkArray(op, a, `${where} [${i}]`));
  }
  return [checkArray(op, v, where)];
}

/**
 * Pair keys with arrays (MXNet `_ctype_key_value`): checks the forms, key types and arrays, and
 * returns one entry per key occurrence, in call order.
 */
export function pairKeys(
  op: string,
  keys: KeysArg,
  values: ValuesArg | undefined,
  what: string,
): KeyArrays[] {
  if (values === undefined || values === null) {
    throw new MXNetError(`no ${what}s given`, { op, hint: `pass the ${what}s for the keys` });
  }
  if (!Array.isArray(keys)) {
    const key = checkKey(op, keys);
    return [{ key, arrays: arraysFor(op, key, values, what) }];
  }
  const list = (keys as readonly unknown[]).map((k) => checkKey(op, k));
  if (!Array.isArray(values) || values.length !== list.length) {
    throw new MXNetError(
      `got ${list.length} keys and ${Array.isArray(values) ? `${values.length} ${what}s` : `one ${what}`}`,
      { op, hint: `give one ${what} (or one list of ${what}s) per key` },
    );
  }
  const kinds = new Set(list.map(keyKind));
  if (kinds.size > 1) {
    throw new MXNetError('inconsistent types of keys detected.', {
      op,
      params: { keys: list },
      hint: 'use either integer keys or string keys',
    });
  }
  return list.map((key, i) => {
    const v = (values as readonly unknown[])[i];
    if (Array.isArray(v)) {
      if (v.some((x) => Array.isArray(x))) {
        throw new MXNetError(`the ${what}s for key ${describeKey(key)} are nested more than one level`, {
          op,
          hint: `give an array or a list of arrays per key`,
        });
      }
    }
    return { key, arrays: arraysFor(op, key, v, what) };
  });
}

/** Merge entries of the same key (MXNet `GroupKVPairs`), keeping the first occurrence's position. */
export function groupByKey(entries: readonly KeyArrays[]): KeyArrays[] {
  const groups = new Map<KVKey, NDArray[]>();
  for (const { key, arrays } of entries) {
    const g = groups.get(key);
    if (g === undefined) groups.set(key, [...arrays]);
    else g.push(...arrays);
  }
  return [...groups].map(([key, arrays]) => ({ key, arrays }));
}
