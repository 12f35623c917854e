/**
 * Element access shared by the np misc kernels: these outputs are small (windows, index lists,
 * polynomial values), so each kernel reads and writes element by element through typed views as
 * doubles, honouring `req` (write or add) and writing int64 words as bigint. Dtypes are cpu-wasm's
 * compute dtypes; others are refused by name.
 */
import { type DTypeName, MXNetError } from '@mx/base';
import { OpReq, type OpReqType, type TBlob } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { castValue, checkDtype } from '../../init/fill.js';

/** The dtypes the misc kernels compute. */
export const MISC_DTYPES: ReadonlySet<DTypeName> = new Set([
  'float32',
  'float64',
  'int32',
  'int64',
  'int8',
  'uint8',
]);
/** Float dtypes (gradients). */
export const FLOAT_DTYPES: ReadonlySet<DTypeName> = new Set(['float32', 'float64']);

type Cells = { [i: number]: number | bigint; length: number };

/** A blob's elements as doubles. */
export function read(rt: CpuWasmRuntime, op: string, b: TBlob, allowed = MISC_DTYPES): Float64Array {
  checkDtype(op, b.dtype, allowed);
  if (b.size === 0) return new Float64Array(0);
  const v = rt.view(b as TBlob<number>) as unknown as Cells;
  const out = new Float64Array(b.size);
  for (let i = 0; i < b.size; i++) out[i] = Number(v[i]);
  return out;
}

/** Write `vals` (doubles, cast to the blob's dtype) into `b` per `req`. */
export function write(
  rt: CpuWasmRuntime,
  op: string,
  b: TBlob,
  req: OpReqType,
  vals: ArrayLike<number>,
  allowed = MISC_DTYPES,
): void {
  checkDtype(op, b.dtype, allowed);
  if (req === OpReq.null || b.size === 0) return;
  if (vals.length !== b.size) {
    throw new MXNetError(`${op}: internal size mismatch ${vals.length} != ${b.size}`, { op });
  }
  const v = rt.view(b as TBlob<number>) as unknown as Cells;
  const add = req === OpReq.add;
  for (let i = 0; i < b.size; i++) {
    const x = castValue(b.dtype, vals[i] as number);
    if (!add) v[i] = x;
    else if (typeof x === 'bigint') v[i] = BigInt.asIntN(64, (v[i] as bigint) + x);
    else v[i] = castValue(b.dtype, (v[i] as number) + x) as number;
  }
}
