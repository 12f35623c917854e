/**
 * Decode golden JSON into typed cases: "nan"/"inf"/"-inf" strings become numbers, int64/uint64
 * values become BigInt, float16/bfloat16 values become their 16-bit patterns, bool becomes 0/1,
 * and each array lands in its dtype's storage class. A malformed file fails here, with the family,
 * case and reason, rather than as a confusing comparison later.
 */
import {
  DType,
  type DTypeName,
  MXNetError,
  dtype as resolveDtype,
  type StorageArray,
  shapeSize,
} from '@mx/base';
import { toBFloat16Bits, toFloat16Bits } from './half.js';
import type { CaseArray, ConformanceCase, RawArray, RawCase, RawCaseFile, RawScalar } from './types.js';

function scalar(v: RawScalar, where: string): number {
  if (typeof v === 'number') return v;
  switch (v) {
    case 'nan':
      return Number.NaN;
    case 'inf':
      return Number.POSITIVE_INFINITY;
    case '-inf':
      return Number.NEGATIVE_INFINITY;
    default:
      throw new MXNetError(`${where}: unexpected value ${JSON.stringify(v)}`, {
        op: 'decodeCase',
        hint: 'golden values are numbers or the strings "nan", "inf", "-inf"',
      });
  }
}

/** Decode one JSON array into its dtype's storage class. */
export function decodeArray(raw: RawArray, where = 'array'): CaseArray {
  const name = resolveDtype(raw.dtype).name as DTypeName;
  const info = DType[name];
  const n = shapeSize(raw.shape);
  if (raw.data.length !== n) {
    throw new MXNetError(`${where}: ${raw.data.length} values for shape (${raw.shape.join(', ')})`, {
      op: 'decodeCase',
      hint: 'regenerate the golden file with its tools/golden/ops script',
    });
  }
  const out: StorageArray = new info.storage(n);
  const sink = out as unknown as (number | bigint)[];
  for (let i = 0; i < n; i++) {
    const v = scalar(raw.data[i] as RawScalar, where);
    if (info.bigint) sink[i] = BigInt(v);
    else if (name === 'float16') sink[i] = toFloat16Bits(v);
    else if (name === 'bfloat16') sink[i] = toBFloat16Bits(v);
    else if (name === 'bool') sink[i] = v !== 0 ? 1 : 0;
    else sink[i] = v;
  }
  return Object.freeze({ shape: Object.freeze([...raw.shape]), dtype: name, data: out });
}

/** Decode one case of `family`. */
export function decodeCase(family: string, raw: RawCase): ConformanceCase {
  const where = `${family}/${raw.name}`;
  if (raw.outputs === undefined && raw.error === undefined) {
    throw new MXNetError(`${where}: a case needs "outputs" or "error"`, {
      op: 'decodeCase',
      hint: 'regenerate the golden file with its tools/golden/ops script',
    });
  }
  const c: ConformanceCase = {
    family,
    name: raw.name,
    op: raw.op,
    params: Object.freeze({ ...(raw.params ?? {}) }),
    inputs: Object.freeze((raw.inputs ?? []).map((a, i) => decodeArray(a, `${where} input ${i}`))),
    ...(raw.outputs === undefined
      ? {}
      : { outputs: Object.freeze(raw.outputs.map((a, i) => decodeArray(a, `${where} output ${i}`))) }),
    ...(raw.error === undefined ? {} : { error: raw.error }),
    rtol: raw.rtol ?? 0,
    atol: raw.atol ?? 0,
    ...(raw.backends === undefined ? {} : { backends: Object.freeze([...raw.backends]) }),
    ...(raw.skip === undefined ? {} : { skip: raw.skip }),
    ...(raw.isTrain === undefined ? {} : { isTrain: raw.isTrain }),
    ...(raw.mutated === undefined
      ? {}
      : {
          mutated: Object.freeze(
            raw.mutated.map((a, i) => (a === null ? null : decodeArray(a, `${where} mutated input ${i}`))),
          ),
        }),
  };
  return Object.freeze(c);
}

/** Decode every case of one golden file. */
export function decodeFile(file: RawCaseFile): ConformanceCase[] {
  return file.cases.map((c) => decodeCase(file.family, c));
}
