/**
 * The sparse "reduce and select" family on cpu-wasm (docs/design/sparse.md): `_sparse_retain`
 * (retain.ts), `_square_sum`, `_contrib_getnnz`, and the sparse kernels of ops that are dense
 * first — `sum`/`mean`/`norm` of CSR (csr-reduce.ts), `slice` of CSR and `where` with a CSR
 * condition (select.ts).
 *
 * Dense-first ops keep their dense kernel: this installer re-registers it with `computeEx` and a
 * `computeExStorage` that accepts exactly the calls MXNet serves with `FComputeEx<cpu>`, so other
 * sparse calls take the logged dense fallback, as in MXNet. It therefore runs after the dense
 * families are installed (backend.ts installs sparse last).
 */
import type { DTypeName } from '@mx/base';
import {
  isSparseBlob,
  type Kernel,
  type OpRegistry,
  OpReq,
  type OpReqType,
  type SparseOutput,
} from '@mx/ops';
import type { CpuWasmRuntime } from '../../runtime.js';
import { type Blob, kernelError, type Sparse } from './blocks.js';
import { CAST_STORAGE_DTYPES } from './cast-storage.js';
import {
  type AxesAttrs,
  getnnz,
  type NormAttrs,
  normServed,
  normSparse,
  SQUARE_SUM_DTYPES,
  squareSum,
  squareSumBackward,
  sumCsr,
  sumCsrServed,
} from './csr-reduce.js';
import { installRetain } from './retain.js';
import { type SliceAttrs, sliceCsr, whereCsr } from './select.js';

const BACKEND = 'cpu-wasm';

/** Re-register `name`'s cpu-wasm kernel with sparse support added (no-op if the op is absent). */
function extend<A>(registry: OpRegistry, name: string, sparse: Kernel<A & Record<string, unknown>>): void {
  if (!registry.has(name)) return;
  const dense = registry.kernel(registry.get(name), BACKEND);
  registry.registerKernel(name, BACKEND, { ...dense, ...sparse } as Kernel);
}

/**
 * False for req=null (nothing to do). Dense outputs honour write and add; a sparse output is
 * allocated by the kernel, so it only takes write.
 */
function active(op: string, r: OpReqType, out: Blob | SparseOutput<number>): boolean {
  if (r === OpReq.null) return false;
  if (r === OpReq.add && isSparseBlob(out))
    throw kernelError(op, `${op} cannot add into a sparse output (req=add)`, 'write into a new array');
  return true;
}

/** The one axis of `_square_sum` as its storage inference accepted it. */
function squareAxis(a: AxesAttrs): 0 | 1 {
  return (a.axis?.[0] ?? 0) === 1 ? 1 : 0;
}

export function installSparseReduce(registry: OpRegistry, rt: CpuWasmRuntime): void {
  installRetain(registry, rt);

  for (const op of ['sum', 'mean'] as const) {
    extend<AxesAttrs>(registry, op, {
      computeExStorage: (a, inSt) => sumCsrServed(a, inSt),
      computeEx(a, _ctx, inputs, req, outputs) {
        if (!active(op, req[0] as OpReqType, outputs[0] as Blob)) return;
        sumCsr(rt, op, a, inputs[0] as Sparse, outputs[0] as Blob, req[0] as OpReqType);
      },
    });
  }

  extend<NormAttrs>(registry, 'norm', {
    computeExStorage: (a, inSt) => normServed(a, inSt),
    computeEx(a, _ctx, inputs, req, outputs) {
      if (!active('norm', req[0] as OpReqType, outputs[0] as Blob)) return;
      normSparse(rt, a, inputs[0] as Sparse, outputs[0] as Blob, req[0] as OpReqType);
    },
  });

  extend<SliceAttrs>(registry, 'slice', {
    computeExStorage: (_a, inSt, outSt) => inSt[0] === 'csr' && outSt[0] === 'csr',
    computeEx(a, _ctx, inputs, req, outputs) {
      if (!active('slice', req[0] as OpReqType, outputs[0] as Blob)) return;
      sliceCsr(rt, a, inputs[0] as Sparse, outputs[0] as SparseOutput<number>);
    },
  });

  extend(registry, 'where', {
    computeExStorage: (_a, inSt, outSt) =>
      inSt[0] === 'csr' && inSt[1] === 'default' && inSt[2] === 'default' && outSt[0] === 'default',
    computeEx(_a, _ctx, inputs, req, outputs) {
      if (!active('where', req[0] as OpReqType, outputs[0] as Blob)) return;
      whereCsr(rt, inputs[0] as Sparse, inputs[1] as Blob, inputs[2] as Blob, outputs[0] as Blob);
    },
  });

  registry.registerKernel<{ readonly axis: number | null }>('_contrib_getnnz', BACKEND, {
    dtypes: [...CAST_STORAGE_DTYPES] as DTypeName[],
    computeEx(a, _ctx, inputs, req, outputs) {
      if (!active('_contrib_getnnz', req[0] as OpReqType, outputs[0] as Blob)) return;
      getnnz(rt, a.axis, inputs[0] as Sparse, outputs[0] as Blob, req[0] as OpReqType);
    },
  });

  registry.registerKernel<AxesAttrs & Record<string, unknown>>('_square_sum', BACKEND, {
    dtypes: SQUARE_SUM_DTYPES,
    computeEx(a, _ctx, inputs, req, outputs) {
      if (!active('_square_sum', req[0] as OpReqType, outputs[0] as Blob)) return;
      const out = outputs[0] as Blob | SparseOutput<number>;
      squareSum(rt, squareAxis(a), inputs[0] as Sparse, out, req[0] as OpReqType);
    },
  });

  registry.registerKernel<AxesAttrs & Record<string, unknown>>('_backward_square_sum', BACKEND, {
    dtypes: SQUARE_SUM_DTYPES,
    computeEx(a, _ctx, inputs, req, outputs) {
      if (!active('_backward_square_sum', req[0] as OpReqType, outputs[0] as Blob)) return;
      squareSumBackward(
        rt,
        squareAxis(a),
        inputs[0] as Blob | Sparse,
        inputs[1] as Sparse,
        outputs[0] as SparseOutput<number>,
      );
    },
  });
}
