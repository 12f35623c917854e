/**
 * The driver of the wasm SGD module (sgd-module.ts) for `sgd_update` with a row_sparse gradient:
 * optimizer.ts asks `sgdWasm` for a runner when the weight and gradient are float32/float64 of one
 * dtype with int32/int64 row ids, and keeps its JavaScript loops (optimizer-rows.ts) otherwise. The
 * split mirrors the driver's order: `badRow` validates the row ids before anything is written (the
 * driver then builds its MXNetError from the JavaScript check, so messages stay one text), `run`
 * updates the output that already holds the weight. Parameters are computed here exactly as
 * `sgdRows`/`sgdDecayAll` compute them (rounded to DType per operation).
 */
import type { SparseBlob, TBlob } from '@mx/ops';
import type { CpuWasmRuntime } from '../../runtime.js';
import type { Params } from './optimizer-rows.js';
import { buildSgdModule, sgdModuleKey } from './sgd-module.js';

type Blob = TBlob<number>;

/** An SGD update of one call, run by the wasm module. */
export interface SgdWasm {
  /** The first invalid gradient position (out of [0, rows) or not ascending), or -1. */
  badRow(rows: number): number;
  /** Update `out` (holding the weight, `rowLen` elements per row), lazily or as standard SGD. */
  run(out: Blob, rowLen: number, p: Params, lazy: boolean): void;
}

type Check = (idx: number, k: number, rows: number) => number;
type Rows = (
  w: number,
  g: number,
  idx: number,
  k: number,
  rowLen: number,
  lr: number,
  lrRescale: number,
  decay: number,
  rescale: number,
  clip: number,
) => void;
type ScaleAll = (w: number, len: number, f: number) => void;

/** A wasm runner for this weight and gradient, or undefined where the JavaScript loops serve. */
export function sgdWasm(
  rt: CpuWasmRuntime,
  w: { readonly dtype: string },
  grad: SparseBlob<number>,
): SgdWasm | undefined {
  const value = w.dtype;
  const ix = grad.aux[0] as Blob;
  const index = ix.dtype === 'int64' ? 'i64' : ix.dtype === 'int32' ? 'i32' : undefined;
  if ((value !== 'float32' && value !== 'float64') || grad.dtype !== value || index === undefined)
    return undefined;
  const types = { value, index, simd: rt.features.simd } as const;
  const k = rt.kernel(sgdModuleKey(types), () => buildSgdModule(types, rt.memoryImport()));
  const rowsOf = grad.storageShape[0] ?? 0;
  const r = value === 'float32' ? Math.fround : (x: number) => x;
  return {
    badRow(rows) {
      if (rowsOf === 0) return -1;
      return (k.exports.checkRows as Check)(rt.address(ix), rowsOf, rows) - 1;
    },
    run(out, rowLen, p, lazy) {
      let wd = p.wd;
      if (!lazy) {
        // MXNet's standard update: every weight row decays first, then the rows step with wd 0.
        const f = Math.fround(1 - Math.fround(p.lr * p.wd));
        (k.exports.scaleAll as ScaleAll)(rt.address(out), out.size, f);
        wd = 0;
      }
      if (rowsOf === 0) return;
      (k.exports.sgdRows as Rows)(
        rt.address(out),
        rt.address(grad.data as Blob),
        rt.address(ix),
        rowsOf,
        rowLen,
        p.lr,
        r(p.lr * p.rescale),
        r(1 - r(p.lr * wd)),
        p.rescale,
        p.clip,
      );
    },
  };
}
