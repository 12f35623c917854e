/**
 * `add_n` (MXNet `ElementWiseSum`): the sum of any number of same-shaped arrays — what MXNet's graph
 * executor aggregates gradients with, and what old symbol files contain.
 *
 * Its input count is a parameter, so no fixed SimpleOp expression covers it. Instead of a kernel per
 * backend it is a *composite kernel*: `out = in0 + in1`, then `out += ink` in place, with the
 * backend's own `elemwise_add` and `_copy` kernels (compiled from their expressions), so every
 * backend with an expression compiler runs it unchanged. Asynchronous backends (WebGPU) queue the
 * steps in order and complete once the last one has.
 *
 * Storage types are MXNet's `ElemwiseStorageAttr<false, true, false>`: all row_sparse → row_sparse,
 * (dense, csr, dense) and more than four inputs with a dense one → dense, served by the backend's
 * sparse kernel; anything else (all CSR included) falls back to dense. A composite has no sparse
 * kernel: backends that serve sparse `add_n` register their own (the dense part stays this one).
 */
import { P } from '../../params.js';
import type { OpRegistry } from '../../registry.js';
import { ADD_N_STORAGE, storageInference } from '../../sparse-elementwise.js';
import { type Attrs, type Kernel, type OpContext, OpReq, type OpReqType, type TBlob } from '../../types.js';
import { elemwiseShape } from './common.js';

const NO_ATTRS: Attrs = Object.freeze({});

type Step = readonly [Kernel, readonly TBlob[], OpReqType];

function steps(add: Kernel, copy: Kernel, inputs: readonly TBlob[], r: OpReqType, out: TBlob): Step[] {
  if (r === OpReq.add) return inputs.map((x) => [copy, [x], OpReq.add] as const);
  if (inputs.length === 1) return [[copy, inputs, r]];
  const list: Step[] = [[add, [inputs[0] as TBlob, inputs[1] as TBlob], r]];
  for (let k = 2; k < inputs.length; k++) list.push([add, [out, inputs[k] as TBlob], OpReq.inplace]);
  return list;
}

function compositeAddN(kernelOf: (name: string) => Kernel | undefined): Kernel | undefined {
  const add = kernelOf('elemwise_add');
  const copy = kernelOf('_copy');
  if (add?.compute === undefined || copy?.compute === undefined) return undefined;
  if ((add.execType ?? 'sync') !== (copy.execType ?? 'sync')) return undefined;
  const isAsync = add.execType === 'async';
  return {
    execType: add.execType ?? 'sync',
    ...(add.dtypes !== undefined ? { dtypes: add.dtypes } : {}),
    compute(_attrs, ctx, inputs, req, outputs) {
      const r = req[0] ?? OpReq.write;
      const out = outputs[0] as TBlob;
      const list = r === OpReq.null || out.size === 0 ? [] : steps(add, copy, inputs, r, out);
      if (!isAsync) {
        for (const [k, ins, q] of list) k.compute?.(NO_ATTRS, ctx, ins, [q], outputs);
        return;
      }
      const done = ctx.onComplete as (error?: unknown) => void;
      if (list.length === 0) {
        done();
        return;
      }
      let left = list.length;
      let failed = false;
      const sub: OpContext = {
        ...ctx,
        onComplete: (error?: unknown) => {
          if (failed) return;
          if (error !== undefined) {
            failed = true;
            done(error);
          } else if (--left === 0) done();
        },
      };
      for (const [k, ins, q] of list) k.compute?.(NO_ATTRS, sub, ins, [q], outputs);
    },
  };
}

export function registerAddN(registry: OpRegistry): void {
  registry.define({
    name: 'add_n',
    aliases: ['ElementWiseSum', '_sparse_add_n', '_sparse_ElementWiseSum', '_npx_add_n'],
    doc: 'the element-wise sum of num_args arrays of one shape (MXNet ElementWiseSum)',
    params: { num_args: P.int({ lowerBound: 1, doc: 'Number of inputs to be summed.' }) },
    keyVarNumArgs: 'num_args',
    numInputs: (a) => a.num_args,
    listInputNames: (a) => Array.from({ length: a.num_args }, (_, i) => `arg${i}`),
    inferShape: (attrs, inS, outS) => elemwiseShape('add_n', attrs, inS, outS),
    inplaceOption: () => [[0, 0]],
    inferStorageType: storageInference(ADD_N_STORAGE),
    gradient: {
      inputs: 'none',
      build: (g, attrs) => Array.from({ length: attrs.num_args }, () => g.ograd(0)),
    },
    compositeKernel: compositeAddN,
  });
}
