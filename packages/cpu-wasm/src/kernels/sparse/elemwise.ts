/**
 * The sparse elementwise family on cpu-wasm (MXNet `FComputeEx<cpu>` of `elemwise_add`/`_sub`/
 * `_mul`/`_div`, `_grad_add`, the `..._WITH_RSP_CSR` unary ops, `_copy`, `BlockGrad`, the sparse
 * scalar ops, `add_n`, `zeros_like`).
 *
 * One generic `computeEx` serves every SimpleOp whose definition declares a storage rule
 * (`sparseElementwiseRule`): the expression compiler (codegen/index.ts) wraps each compiled kernel
 * with `withSparseSupport`, and `computeExStorage` accepts exactly the signatures MXNet serves
 * without the logged fallback (`servesSparse`). The dense `compute` is the compiled one, unchanged,
 * and all-dense calls never reach storage dispatch, so dense work pays nothing for this. Per call:
 *
 * - a dense output: sparse inputs are densified into scratch blobs and the dense kernel runs (what
 *   MXNet's `DnsCsrDnsOp`/`DnsRspDnsOp`/dense-result kernels compute, with the dense kernel's exact
 *   dtype behaviour, e.g. `_plus_scalar(csr, 3)` or `elemwise_div(rsp, rsp)`);
 * - one sparse input, same sparse output (f(0) = 0, which the rule guarantees): the dense kernel
 *   runs over the data block and the aux blocks are copied (MXNet `UnaryOp::MapToFCompute`);
 * - two inputs with a sparse output: the index merges of elemwise-merge.ts.
 *
 * `add_n` is a composite (ops/defs/elementwise/add-n.ts) and `zeros_like` a fill kernel, so
 * `installElemwise` re-registers their cpu-wasm kernels with a `computeEx` added.
 */
import { MXNetError } from '@mx/base';
import {
  type Attrs,
  type FCompute,
  type FComputeEx,
  isSparseBlob,
  type Kernel,
  type Op,
  type OpContext,
  type OpRegistry,
  OpReq,
  type OpReqType,
  type SparseElementwiseRule,
  type SparseOutput,
  servesSparse,
  sparseElementwiseRule,
} from '@mx/ops';
import type { CpuWasmRuntime } from '../../runtime.js';
import { csrCsr, csrDense, type MergeEnv, rspDense, rspRsp, rspSum } from './elemwise-merge.js';
import {
  type Blob,
  checkSparse,
  copyIndices,
  densify,
  Scratch,
  type Sparse,
  writeIndices,
} from './elemwise-parts.js';

type Input = Blob | Sparse;
type Output = Blob | SparseOutput<number>;

function unsupported(op: string, inputs: readonly Input[], out: Output): MXNetError {
  const st = (x: Input | Output) => (isSparseBlob(x) ? x.stype : 'default');
  return new MXNetError(`no sparse kernel for storage types (${inputs.map(st).join(', ')}) → (${st(out)})`, {
    op,
    hint: 'cast the inputs with tostype() to storage types the op serves',
  });
}

/** Densify the sparse inputs and run the dense kernel (a dense output). */
function denseResult(
  rt: CpuWasmRuntime,
  scratch: Scratch,
  op: string,
  compute: FCompute<Attrs, number>,
  attrs: Attrs,
  ctx: OpContext,
  inputs: readonly Input[],
  req: readonly OpReqType[],
  outputs: readonly Blob[],
): void {
  const blobs = inputs.map((x, i) => (isSparseBlob(x) ? densify(rt, scratch, x, op, `input ${i}`) : x));
  compute(attrs, ctx, blobs, req, outputs);
}

/** The generic `computeEx` of an elementwise op with dense kernel `compute`. */
function elementwiseEx(
  rt: CpuWasmRuntime,
  op: string,
  compute: FCompute<Attrs, number>,
): FComputeEx<Attrs, number> {
  return (attrs, ctx, inputs, req, outputs) => {
    const r = req[0];
    const out = outputs[0];
    if (r === undefined || r === OpReq.null || out === undefined) return;
    const scratch = new Scratch(rt, op);
    try {
      if (!isSparseBlob(out)) {
        denseResult(rt, scratch, op, compute, attrs, ctx, inputs, req, [out]);
        return;
      }
      if (r === OpReq.add)
        throw new MXNetError('cannot accumulate (req=add) into a sparse output', {
          op,
          hint: 'add explicitly',
        });
      const env: MergeEnv = { rt, scratch, op, compute, attrs, ctx };
      const [a, b] = inputs;
      if (inputs.length === 1 && a !== undefined && isSparseBlob(a) && a.stype === out.stype) {
        // f(0) = 0: the op over the stored values, the structure copied.
        checkSparse(rt, a, op, 'input 0');
        out.alloc(
          a.storageShape,
          a.aux.map((x) => x.shape),
        );
        a.aux.forEach((x, i) => {
          copyIndices(rt, out.aux[i] as Blob, x);
        });
        compute(attrs, ctx, [a.data], [OpReq.write], [out.data]);
        return;
      }
      if (inputs.length === 2 && a !== undefined && b !== undefined) {
        const sa = isSparseBlob(a);
        const sb = isSparseBlob(b);
        if (sa && sb && a.stype === b.stype && a.stype === out.stype) {
          if (out.stype === 'row_sparse') rspRsp(env, a, b, out);
          else csrCsr(env, a, b, out);
          return;
        }
        if (sa !== sb) {
          const sparse = (sa ? a : b) as Sparse;
          const dense = (sa ? b : a) as Blob;
          if (sparse.stype === out.stype) {
            if (out.stype === 'row_sparse') rspDense(env, sparse, dense, sa, out);
            else csrDense(env, sparse, dense, sa, out);
            return;
          }
        }
      }
      throw unsupported(op, inputs, out);
    } finally {
      scratch.free();
    }
  };
}

/**
 * `kernel` with MXNet's sparse `computeEx` added when `op` declares a storage rule (unchanged
 * otherwise). Used by the SimpleOp compiler on every compiled kernel.
 */
export function withSparseSupport(rt: CpuWasmRuntime, op: Op, kernel: Kernel): Kernel {
  const rule = sparseElementwiseRule(op);
  const compute = kernel.compute as FCompute<Attrs, number> | undefined;
  if (rule === undefined || compute === undefined) return kernel;
  return {
    ...kernel,
    computeEx: elementwiseEx(rt, op.name, compute) as FComputeEx,
    computeExStorage: (attrs, inTypes, outTypes) => servesSparse(rule, attrs, inTypes, outTypes),
  };
}

/** `add_n` with row_sparse inputs, or a dense result, added to its composite dense kernel. */
function sparseAddN(rt: CpuWasmRuntime, rule: SparseElementwiseRule, base: Kernel, add: FCompute): Kernel {
  const compute = base.compute as FCompute<Attrs, number>;
  const computeEx: FComputeEx<Attrs, number> = (attrs, ctx, inputs, req, outputs) => {
    const r = req[0];
    const out = outputs[0];
    if (r === undefined || r === OpReq.null || out === undefined) return;
    const scratch = new Scratch(rt, 'add_n');
    try {
      if (!isSparseBlob(out)) {
        denseResult(rt, scratch, 'add_n', compute, attrs, ctx, inputs, req, [out]);
        return;
      }
      if (r === OpReq.add)
        throw new MXNetError('cannot accumulate (req=add) into a sparse output', {
          op: 'add_n',
          hint: 'add explicitly',
        });
      if (out.stype !== 'row_sparse' || !inputs.every((x) => isSparseBlob(x) && x.stype === 'row_sparse'))
        throw unsupported('add_n', inputs, out);
      const env: MergeEnv = { rt, scratch, op: 'add_n', compute, attrs, ctx };
      rspSum(env, inputs as readonly Sparse[], out, add as FCompute<Attrs, number>);
    } finally {
      scratch.free();
    }
  };
  return {
    ...base,
    computeEx: computeEx as FComputeEx,
    computeExStorage: (attrs, inTypes, outTypes) => servesSparse(rule, attrs, inTypes, outTypes),
  };
}

/** `zeros_like` of a sparse array: an empty array of its storage type (MXNet `FillComputeZerosEx`). */
function sparseZerosLike(base: Kernel, rt: CpuWasmRuntime): Kernel {
  const computeEx: FComputeEx<Attrs, number> = (attrs, ctx, _inputs, req, outputs) => {
    const out = outputs[0];
    if (out === undefined || req[0] === OpReq.null) return;
    if (!isSparseBlob(out)) {
      // The fill kernel reads no input (zeros_like ignores its input's values).
      base.compute?.(attrs, ctx, [], req, [out]);
      return;
    }
    const rows = out.shape[0] ?? 0;
    if (out.stype === 'csr') {
      out.alloc([0], [[rows + 1], [0]]);
      writeIndices(rt, out.aux[0] as Blob, new Float64Array(rows + 1));
    } else {
      out.alloc([0, ...out.shape.slice(1)], [[0]]);
    }
  };
  return {
    ...base,
    computeEx: computeEx as FComputeEx,
    computeExStorage: (_attrs, inTypes, outTypes) => inTypes[0] !== 'default' && outTypes[0] === inTypes[0],
  };
}

/**
 * Add the sparse kernels of `add_n` and `zeros_like` to their cpu-wasm kernels (installed after the
 * expression compiler and the fill kernels). The SimpleOps get theirs from `withSparseSupport`.
 */
export function installElemwise(registry: OpRegistry, rt: CpuWasmRuntime): void {
  const addN = registry.find('add_n');
  const plus = registry.find('elemwise_add');
  const rule = addN && sparseElementwiseRule(addN);
  const base = addN && registry.kernel(addN, 'cpu-wasm');
  const add = plus && registry.kernel(plus, 'cpu-wasm')?.compute;
  if (rule !== undefined && base?.compute !== undefined && add !== undefined)
    registry.registerKernel('add_n', 'cpu-wasm', sparseAddN(rt, rule, base, add));
  const zerosLike = registry.find('zeros_like');
  const fill = zerosLike && registry.kernel(zerosLike, 'cpu-wasm');
  if (fill?.compute !== undefined)
    registry.registerKernel('zeros_like', 'cpu-wasm', sparseZerosLike(fill, rt));
}
