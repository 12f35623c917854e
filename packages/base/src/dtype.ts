/**
 * DType: element types with MXNet's type flags (written into saved files and symbol JSON) and
 * NumPy's names (what users type).
 *
 * Every dtype has a typed-array class used to *store* it on the host. Types JavaScript has no
 * native array for are stored bit-for-bit: float16 and bfloat16 in Uint16Array, bool in Uint8Array.
 * Which dtypes a backend can *compute* in is the backend's capability, not this table's concern.
 */
import { MXNetError } from './error.js';

export type DTypeName =
  | 'float32'
  | 'float64'
  | 'float16'
  | 'uint8'
  | 'int32'
  | 'int8'
  | 'int64'
  | 'bool'
  | 'int16'
  | 'uint16'
  | 'uint32'
  | 'uint64'
  | 'bfloat16';

/** Kind letter as in NumPy's `dtype.kind`: float, signed int, unsigned int, bool. bfloat16 is 'f'. */
export type DTypeKind = 'f' | 'i' | 'u' | 'b';

export type StorageArray =
  | Float32Array
  | Float64Array
  | Uint8Array
  | Int8Array
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array
  | BigInt64Array
  | BigUint64Array;

export interface StorageArrayConstructor {
  readonly BYTES_PER_ELEMENT: number;
  new (length: number): StorageArray;
  new (buffer: ArrayBufferLike, byteOffset?: number, length?: number): StorageArray;
}

export interface DTypeInfo {
  /** NumPy name. */
  readonly name: DTypeName;
  /** MXNet's `mshadow::TypeFlag` value. */
  readonly flag: number;
  /** Bytes per element. */
  readonly bytes: number;
  readonly kind: DTypeKind;
  /** NumPy `.npy` descriptor (`<f4`), or undefined where NumPy has none (bfloat16). */
  readonly descr: string | undefined;
  /** Typed-array class that stores this dtype on the host. */
  readonly storage: StorageArrayConstructor;
  /** True when values are read as bigint (int64, uint64). */
  readonly bigint: boolean;
}

function info(
  name: DTypeName,
  flag: number,
  bytes: number,
  kind: DTypeKind,
  descr: string | undefined,
  storage: StorageArrayConstructor,
): DTypeInfo {
  return Object.freeze({ name, flag, bytes, kind, descr, storage, bigint: bytes === 8 && kind !== 'f' });
}

/** All dtypes by NumPy name. */
export const DType = Object.freeze({
  float32: info('float32', 0, 4, 'f', '<f4', Float32Array),
  float64: info('float64', 1, 8, 'f', '<f8', Float64Array),
  float16: info('float16', 2, 2, 'f', '<f2', Uint16Array),
  uint8: info('uint8', 3, 1, 'u', '|u1', Uint8Array),
  int32: info('int32', 4, 4, 'i', '<i4', Int32Array),
  int8: info('int8', 5, 1, 'i', '|i1', Int8Array),
  int64: info('int64', 6, 8, 'i', '<i8', BigInt64Array),
  bool: info('bool', 7, 1, 'b', '|b1', Uint8Array),
  int16: info('int16', 8, 2, 'i', '<i2', Int16Array),
  uint16: info('uint16', 9, 2, 'u', '<u2', Uint16Array),
  uint32: info('uint32', 10, 4, 'u', '<u4', Uint32Array),
  uint64: info('uint64', 11, 8, 'u', '<u8', BigUint64Array),
  bfloat16: info('bfloat16', 12, 2, 'f', undefined, Uint16Array),
} satisfies Record<DTypeName, DTypeInfo>);

/** Every dtype, ordered by MXNet flag. */
export const ALL_DTYPES: readonly DTypeInfo[] = Object.freeze(
  Object.values(DType).sort((a, b) => a.flag - b.flag),
);

const BY_FLAG: readonly DTypeInfo[] = ALL_DTYPES;

/** Spellings accepted besides the canonical names (NumPy aliases and descriptors). */
const ALIASES: Readonly<Record<string, DTypeName>> = {
  float: 'float32',
  f4: 'float32',
  '<f4': 'float32',
  double: 'float64',
  f8: 'float64',
  '<f8': 'float64',
  half: 'float16',
  f2: 'float16',
  '<f2': 'float16',
  u1: 'uint8',
  '|u1': 'uint8',
  i4: 'int32',
  '<i4': 'int32',
  int: 'int64',
  i1: 'int8',
  '|i1': 'int8',
  i8: 'int64',
  '<i8': 'int64',
  bool_: 'bool',
  '?': 'bool',
  '|b1': 'bool',
  b1: 'bool',
  i2: 'int16',
  '<i2': 'int16',
  u2: 'uint16',
  '<u2': 'uint16',
  u4: 'uint32',
  '<u4': 'uint32',
  u8: 'uint64',
  '<u8': 'uint64',
};

/** The dtype with MXNet type flag `flag`. */
export function dtypeFromFlag(flag: number): DTypeInfo {
  const d = Number.isInteger(flag) ? BY_FLAG[flag] : undefined;
  if (d === undefined) {
    throw new MXNetError(`unknown MXNet dtype flag ${flag}`, {
      op: 'dtypeFromFlag',
      hint: `valid flags are 0..${BY_FLAG.length - 1} (${BY_FLAG.map((x) => `${x.flag}=${x.name}`).join(', ')})`,
    });
  }
  return d;
}

/** Resolve a dtype from a name, NumPy alias/descriptor, flag number or info object. */
export function dtype(spec: DTypeName | DTypeInfo | string | number): DTypeInfo {
  if (typeof spec === 'number') return dtypeFromFlag(spec);
  if (typeof spec === 'object') return dtype(spec.name);
  const name = spec in DType ? (spec as DTypeName) : ALIASES[spec];
  if (name === undefined) {
    throw new MXNetError(`unknown dtype "${spec}"`, {
      op: 'dtype',
      hint: `use one of ${ALL_DTYPES.map((d) => d.name).join(', ')}`,
    });
  }
  return DType[name];
}

/** True for float16/bfloat16/float32/float64. */
export function isFloatDType(d: DTypeInfo): boolean {
  return d.kind === 'f';
}

/** True for signed and unsigned integers (not bool). */
export function isIntegerDType(d: DTypeInfo): boolean {
  return d.kind === 'i' || d.kind === 'u';
}
