/**
 * cpu-wasm kernel of `_npi_searchsorted`: one binary search per element of `v` over the typed view
 * of the sorted 1-D `a` (O(|v| log |a|), no copies). The order is NumPy's sort order — NaN after
 * every number and equal to NaN — so `lessThan` is `x < y || (isNaN(y) && !isNaN(x))` for floats
 * and plain `<` for integers (int64 compares as bigint, exactly). 'left' finds the first position
 * whose element is not less than the value, 'right' the first whose element is greater. The
 * output (int64 as bigint words, or int32) honours `req` (write, or add for gradient buffers).
 */
import type { DTypeName } from '@mx/base';
import { type OpRegistry, OpReq, type OpReqType, type TBlob } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';

const BACKEND = 'cpu-wasm';
type Blob = TBlob<number>;

/** The dtypes of `a` and `v` this kernel searches (the np layer widens others), and the outputs'. */
export const SEARCHSORTED_DTYPES: readonly DTypeName[] = [
  'float32',
  'float64',
  'int32',
  'int64',
  'int8',
  'uint8',
];

interface SearchAttrs {
  readonly side: 'left' | 'right';
  readonly dtype: 'int32' | 'int64';
  readonly [k: string]: unknown;
}

type Cells = { readonly [i: number]: number | bigint; readonly length: number };

/** The insertion positions of `v`'s values into sorted `a` (NumPy's order; `floats`: NaN-aware). */
function searchSorted(a: Cells, v: Cells, right: boolean, floats: boolean): Float64Array {
  const n = a.length;
  const out = new Float64Array(v.length);
  // lt(x, y): x sorts strictly before y.
  const lt = floats
    ? (x: number, y: number) => x < y || (Number.isNaN(y) && !Number.isNaN(x))
    : (x: number | bigint, y: number | bigint) => x < y;
  for (let e = 0; e < v.length; e++) {
    const x = v[e] as number;
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const m = a[mid] as number;
      // left: go right while a[mid] < x; right: while !(x < a[mid]).
      if (right ? !lt(x, m) : lt(m, x)) lo = mid + 1;
      else hi = mid;
    }
    out[e] = lo;
  }
  return out;
}

export function installSearchsorted(registry: OpRegistry, rt: CpuWasmRuntime): void {
  registry.registerKernel<SearchAttrs>('_npi_searchsorted', BACKEND, {
    dtypes: SEARCHSORTED_DTYPES,
    compute(attrs, _ctx, inputs, req, outputs) {
      const a = inputs[0] as Blob;
      const v = inputs[1] as Blob;
      const out = outputs[0] as Blob;
      const r = req[0] as OpReqType;
      if (r === OpReq.null || out.size === 0) return;
      const empty: Cells = [];
      const av = a.size === 0 ? empty : (rt.view(a) as unknown as Cells);
      const vv = rt.view(v) as unknown as Cells;
      const pos = searchSorted(av, vv, attrs.side === 'right', a.dtype.startsWith('float'));
      const add = r === OpReq.add;
      if (out.dtype === 'int64') {
        const o = rt.view(out) as BigInt64Array;
        for (let i = 0; i < pos.length; i++) {
          const p = BigInt(pos[i] as number);
          o[i] = add ? (o[i] as bigint) + p : p;
        }
      } else {
        const o = rt.view(out) as Int32Array;
        for (let i = 0; i < pos.length; i++)
          o[i] = add ? (o[i] as number) + (pos[i] as number) : (pos[i] as number);
      }
    },
  });
}
