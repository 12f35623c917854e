/**
 * cpu-wasm kernels of the np generators MXNet 2.0 gives their own FCompute: `_npi_linspace`,
 * `_npi_logspace`, `_npi_indices` and `_npi_tri` (the fills, eye and arange run the legacy
 * kernels through `via`, see ops' np/creation/common.ts). Element by element over a typed view:
 * these outputs are index-sized, not bulk data.
 *
 * Arithmetic is MXNet 2.0's (np_init_op.h), which matches NumPy 1.24's: linspace is
 * `start + step * i` in double with element 0 exactly `start` and, with endpoint, the last exactly
 * `stop`; logspace is `pow(base, start + step * i)`; values are then cast as C++ `static_cast`
 * does (integers truncate toward zero, as NumPy's `astype`). One deviation from MXNet 2.0, for
 * NumPy's: integer linspace takes the floor first (NumPy >= 1.20, and MXNet's legacy `_linspace`),
 * where MXNet 2.0's `static_cast` truncates (they differ on negative non-integers only).
 */
import type { DTypeName } from '@mx/base';
import { type OpContext, type OpRegistry, OpReq, type OpReqType, type TBlob } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { castValue, checkDtype } from '../../init/fill.js';

/** Dtypes the generators write (cpu-wasm's compute dtypes). */
const GEN_DTYPES: ReadonlySet<DTypeName> = new Set([
  'float32',
  'float64',
  'int32',
  'int64',
  'int8',
  'uint8',
  'bool',
]);

/** Write `value(i)` (a double, cast to the dtype) to every element of `out`, honouring req. */
export function generate(
  rt: CpuWasmRuntime,
  op: string,
  out: TBlob<number>,
  req: OpReqType,
  value: (i: number) => number,
): void {
  checkDtype(op, out.dtype, GEN_DTYPES);
  if (req === OpReq.null || out.size === 0) return;
  const view = rt.view(out) as unknown as { [i: number]: number | bigint };
  const add = req === OpReq.add;
  for (let i = 0; i < out.size; i++) {
    const v = castValue(out.dtype, value(i));
    if (!add) view[i] = v;
    else if (typeof v === 'bigint') view[i] = BigInt.asIntN(64, (view[i] as bigint) + v);
    else if (out.dtype === 'bool') view[i] = (view[i] as number) !== 0 || v !== 0 ? 1 : 0;
    else view[i] = (view[i] as number) + v;
  }
}

interface LinspaceAttrs {
  readonly start_double: number;
  readonly stop_double: number;
  readonly start_int: number;
  readonly stop_int: number;
  readonly start_uint: number;
  readonly stop_uint: number;
  readonly num: number;
  readonly endpoint: boolean;
  readonly value_type: number;
}

/** MXNet's NumpyLinspaceCompute: element i of `linspace` as a double. */
export function linspaceValue(a: LinspaceAttrs): (i: number) => number {
  const [start, stop] =
    a.value_type === 0
      ? [a.start_int, a.stop_int]
      : a.value_type === 1
        ? [a.start_uint, a.stop_uint]
        : [a.start_double, a.stop_double];
  const stepNum = a.endpoint ? a.num - 1 : a.num;
  const step = stepNum > 0 ? (stop - start) / stepNum : 0;
  return (i) => (i === 0 ? start : a.endpoint && i === a.num - 1 ? stop : start + step * i);
}

interface LogspaceAttrs {
  readonly start: number;
  readonly stop: number;
  readonly num: number;
  readonly endpoint: boolean;
  readonly base: number;
}

/** MXNet's LogspaceCompute: element i of `logspace` as a double. */
export function logspaceValue(a: LogspaceAttrs): (i: number) => number {
  const stepNum = a.endpoint ? a.num - 1 : a.num;
  const step = stepNum > 0 ? (a.stop - a.start) / stepNum : 0;
  return (i) => a.base ** (a.start + step * i);
}

/** `_npi_indices`: element j of the output (nd, ...dims) is coordinate j / N of flat index j % N. */
function indicesValue(dims: readonly number[]): (i: number) => number {
  const n = dims.reduce((p, d) => p * d, 1);
  const inner = dims.map((_, d) => dims.slice(d + 1).reduce((p, x) => p * x, 1));
  return (i) => {
    const axis = Math.floor(i / n);
    return Math.floor((i % n) / (inner[axis] as number)) % (dims[axis] as number);
  };
}

export function installSequences(registry: OpRegistry, rt: CpuWasmRuntime): void {
  const gen =
    <A>(op: string, value: (a: A, out: TBlob<number>) => (i: number) => number) =>
    (a: A, _c: OpContext, _i: readonly TBlob[], req: readonly OpReqType[], out: readonly TBlob[]) => {
      const o = out[0] as TBlob<number>;
      generate(rt, op, o, req[0] as OpReqType, value(a, o));
    };
  registry.registerKernel<LinspaceAttrs & Record<string, unknown>>('_npi_linspace', 'cpu-wasm', {
    compute: gen('_npi_linspace', (a: LinspaceAttrs, o) => {
      const v = linspaceValue(a);
      return /int/.test(o.dtype) ? (i) => Math.floor(v(i)) : v;
    }),
  });
  registry.registerKernel<LogspaceAttrs & Record<string, unknown>>('_npi_logspace', 'cpu-wasm', {
    compute: gen('_npi_logspace', (a: LogspaceAttrs) => logspaceValue(a)),
  });
  registry.registerKernel<{ dimensions: readonly number[] }>('_npi_indices', 'cpu-wasm', {
    compute: gen('_npi_indices', (a: { dimensions: readonly number[] }) => indicesValue(a.dimensions)),
  });
  registry.registerKernel<{ k: number }>('_npi_tri', 'cpu-wasm', {
    compute: gen('_npi_tri', (a: { k: number }, o) => {
      const cols = o.shape[1] as number;
      return (i) => (i % cols <= Math.floor(i / cols) + a.k ? 1 : 0);
    }),
  });
}
