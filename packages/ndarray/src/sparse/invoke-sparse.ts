/**
 * Storage-type dispatch for imperative calls (MXNet `Imperative::Invoke` with `SetShapeType`'s
 * storage inference and `DispatchMode`): the branch of `invokeOp` taken only when an input or an
 * `out=` array is sparse, or the op says dense inputs may give a sparse output under its params
 * (`Op.sparseFromDense`) — other dense calls never come here.
 *
 * 1. `inferStorageType` gives the output storage types (MXNet's rules, per op).
 * 2. All dense: back to the dense path (undefined is returned).
 * 3. The backend kernel's `computeEx` serves these storage types: one engine op reading the input
 *    vars and writing the output vars; sparse outputs are chunks without blocks that the kernel
 *    allocates through `SparseOutput.alloc` while it runs (MXNet's `CheckAndAlloc`), and sparse
 *    inputs are described to the kernel from their current blocks when it runs.
 * 4. Otherwise the storage fallback (MXNet `kFComputeFallback`): sparse inputs are cast to dense
 *    temporaries, the dense kernel runs, and results are cast back to the inferred sparse storage;
 *    MXNet's "Storage type fallback detected" text is logged once per distinct call signature
 *    (held by the runtime), unless `MXNET_STORAGE_FALLBACK_LOG_VERBOSE=0`.
 */
import { type Context, type DTypeName, MXNetError, type Shape } from '@mx/base';
import { FnProperty, type Var } from '@mx/engine';
import {
  type Kernel,
  type Op,
  type OpContext,
  OpReq,
  type SparseBlob,
  type SparseOutput,
  type StorageType,
  type TBlob,
} from '@mx/ops';
import { callError, type InvokeOptions, inferCall, invokeOp } from '../invoke.js';
import type { NDArray } from '../ndarray.js';
import type { Runtime } from '../runtime.js';
import {
  BaseSparseNDArray,
  defaultAuxTypes,
  emptySparse,
  isSparse,
  storableAuxTypes,
  stypesOf,
  unallocatedDense,
} from './arrays.js';

type Params = Readonly<Record<string, unknown>> | undefined;
type Result = { outputs: NDArray[]; visible: number; attrs: Readonly<Record<string, unknown>> };

/**
 * True when a call must go through storage dispatch (cheap: one getter per array): a sparse input
 * or `out=` array, or params under which the op makes sparse outputs from dense inputs
 * (`Op.sparseFromDense`). All-dense calls of ops with storage inference stay on the dense path.
 */
export function needsStorageDispatch(
  op: Op,
  attrs: Readonly<Record<string, unknown>>,
  inputs: readonly NDArray[],
  out: InvokeOptions['out'],
): boolean {
  for (const a of inputs) if (a.stype !== 'default') return true;
  if (out !== undefined) {
    const outs = Array.isArray(out) ? out : [out as NDArray];
    for (const o of outs) if (o.stype !== 'default') return true;
  }
  return op.sparseFromDense(attrs as never);
}

/** The storage-dispatch branch of `invokeOp`; undefined when the call turns out all dense. */
export function invokeSparse(
  rt: Runtime,
  op: Op,
  attrs: Readonly<Record<string, unknown>>,
  inputs: readonly NDArray[],
  params: Params,
  options: InvokeOptions,
  isTrain: boolean,
  ctx: Context,
): Result | undefined {
  const nOut = op.numOutputs(attrs);
  const inSt = stypesOf(inputs);
  const outSt = inferStorage(op, attrs, inputs, params, inSt, nOut);
  const outArg =
    options.out === undefined
      ? undefined
      : Array.isArray(options.out)
        ? options.out
        : [options.out as NDArray];
  const dense = (t: StorageType) => t === 'default';
  if (inSt.every(dense) && outSt.every(dense) && (outArg?.every((o) => dense(o.stype)) ?? true))
    return undefined;
  const { inTypes, outShapes, outTypes } = inferCall(op, attrs, inputs, params, ctx);
  const backend = rt.backendFor(ctx, op.name);
  const kernel = rt.registry.kernel(op, backend.name);
  if (kernel?.computeEx !== undefined && (kernel.computeExStorage?.(attrs, inSt, outSt) ?? true)) {
    checkDTypes(
      op,
      kernel,
      backend.capabilities.computeDTypes,
      attrs,
      inTypes,
      outTypes,
      inputs,
      params,
      ctx,
    );
    return runComputeEx(
      rt,
      op,
      kernel,
      attrs,
      inputs,
      params,
      options,
      outArg,
      isTrain,
      ctx,
      outSt,
      outShapes,
      outTypes,
    );
  }
  return fallback(rt, op, attrs, inputs, params, options, outArg, isTrain, ctx, inSt, outSt, kernel);
}

function inferStorage(
  op: Op,
  attrs: Readonly<Record<string, unknown>>,
  inputs: readonly NDArray[],
  params: Params,
  inSt: StorageType[],
  nOut: number,
): StorageType[] {
  const outSt: StorageType[] = new Array(nOut).fill(undefined);
  let known: boolean;
  try {
    known = op.inferStorageType(attrs, [...inSt], outSt);
  } catch (e) {
    if (e instanceof MXNetError && e.shapes === undefined) {
      throw callError(op, `${e.reason} (input storage types: ${inSt.join(', ')})`, inputs, params, e.hint);
    }
    throw e;
  }
  if (!known || outSt.some((t) => t === undefined)) {
    throw callError(
      op,
      `could not infer the output storage types from ${inSt.join(', ')} inputs`,
      inputs,
      params,
    );
  }
  return outSt;
}

function checkDTypes(
  op: Op,
  kernel: Kernel,
  computeDTypes: readonly DTypeName[],
  attrs: Readonly<Record<string, unknown>>,
  inTypes: DTypeName[],
  outTypes: DTypeName[],
  inputs: readonly NDArray[],
  params: Params,
  ctx: Context,
): void {
  const dtypes = kernel.dtypes ?? computeDTypes;
  const bad = [...inTypes, ...outTypes].find((t) => !dtypes.includes(t));
  const why =
    bad === undefined ? kernel.checkDTypes?.(attrs, inTypes, outTypes) : `supported: ${dtypes.join(', ')}`;
  if (why !== undefined) {
    throw callError(
      op,
      `dtypes (${[...inTypes, ...outTypes].join(', ')}) are not supported by ${op.name} on ${ctx}: ${why}`,
      inputs,
      params,
      'cast with astype()',
    );
  }
}

function runComputeEx(
  rt: Runtime,
  op: Op,
  kernel: Kernel,
  attrs: Readonly<Record<string, unknown>>,
  inputs: readonly NDArray[],
  params: Params,
  options: InvokeOptions,
  outArg: readonly NDArray[] | undefined,
  isTrain: boolean,
  ctx: Context,
  outSt: StorageType[],
  outShapes: Shape[],
  outTypes: DTypeName[],
): Result {
  let outputs: NDArray[];
  if (outArg !== undefined) {
    checkOut(rt, op, attrs, inputs, params, outArg, outSt, outShapes, outTypes, ctx);
    if (options.req === 'add') {
      throw callError(
        op,
        'req=add is not supported with sparse storage',
        inputs,
        params,
        'add the result explicitly',
      );
    }
    outputs = outArg as NDArray[];
  } else {
    outputs = outSt.map((st, i) =>
      st === 'default'
        ? options.skip?.[i] === true
          ? unallocatedDense(rt, outShapes[i] as Shape, outTypes[i] as DTypeName, ctx, op.name)
          : rt.empty(outShapes[i] as Shape, outTypes[i] as DTypeName, ctx, op.name)
        : emptySparse(
            rt,
            st,
            outShapes[i] as Shape,
            outTypes[i] as DTypeName,
            ctx,
            storableAuxTypes(rt, ctx, defaultAuxTypes(st), op.name),
            op.name,
          ),
    );
  }
  const skip = options.skip;
  const req = outputs.map((_, i) => (skip?.[i] === true ? OpReq.null : OpReq.write));
  // Sparse inputs are described when the op runs: an earlier op may still (re)allocate their blocks.
  const inArgs: (() => TBlob | SparseBlob)[] = inputs.map((a) => {
    if (a instanceof BaseSparseNDArray) {
      const store = a.store;
      return () => store.blob();
    }
    const b = a.blob();
    return () => b;
  });
  const outArgs: (TBlob | SparseOutput)[] = outputs.map((o) =>
    o instanceof BaseSparseNDArray ? o.store.output() : o.blob(),
  );
  const constVars: Var[] = inputs.map((a) => a.chunkVar);
  const mutateVars: Var[] = outputs.map((o) => o.chunkVar);
  for (const i of op.mutateInputs(attrs)) mutateVars.push((inputs[i] as NDArray).chunkVar);
  const kinds = op.resourceRequest(attrs);
  const requested = kinds.map((k) => rt.resources.request(ctx, k));
  for (const r of requested) if (r.var !== undefined) mutateVars.push(r.var as Var);
  const computeEx = kernel.computeEx as NonNullable<Kernel['computeEx']>;
  const run = (opCtx: OpContext) =>
    computeEx(
      attrs,
      opCtx,
      inArgs.map((f) => f()),
      req,
      outArgs,
    );
  try {
    if (kernel.execType === 'async') {
      rt.engine.pushAsync(
        (runCtx, onComplete) =>
          run({
            isTrain,
            needGrad: false,
            ctx,
            requested,
            onComplete,
            setBlockingWait: (w) => runCtx.setBlockingWait(w),
          }),
        ctx,
        constVars,
        mutateVars,
        { name: op.name },
      );
    } else {
      const opCtx: OpContext = { isTrain, needGrad: false, ctx, requested };
      rt.engine.pushSync(() => run(opCtx), ctx, constVars, mutateVars, {
        name: op.name,
        prop: FnProperty.async,
      });
    }
  } catch (e) {
    if (outArg === undefined) for (const o of outputs) o.dispose();
    throw e;
  }
  return { outputs, visible: op.numVisibleOutputs(attrs), attrs };
}

/**
 * out= arrays of a storage-dispatched call: live, this runtime's, the inferred shape/dtype/stype,
 * and no input aliased — except a dense input written in place as the op declares (MXNet
 * `FInplaceOption`: a lazy `sgd_update(w, rspGrad, out=w)` updates the weight's rows in place).
 */
function checkOut(
  rt: Runtime,
  op: Op,
  attrs: Readonly<Record<string, unknown>>,
  inputs: readonly NDArray[],
  params: Params,
  outArg: readonly NDArray[],
  outSt: StorageType[],
  outShapes: Shape[],
  outTypes: DTypeName[],
  ctx: Context,
): void {
  if (outArg.length !== outSt.length)
    throw callError(op, `out= needs ${outSt.length} array(s), got ${outArg.length}`, inputs, params);
  outArg.forEach((o, i) => {
    o.checkLive(op.name);
    const s = outShapes[i] as Shape;
    if (
      o.runtime !== rt ||
      o.ctx !== ctx ||
      o.dtype !== outTypes[i] ||
      o.stype !== outSt[i] ||
      o.shape.length !== s.length ||
      o.shape.some((d, j) => d !== s[j])
    ) {
      throw callError(
        op,
        `out= array ${i} is ${o.stype} ${o.dtype} ${JSON.stringify(o.shape)} on ${o.ctx}; the op produces ${outSt[i]} ${outTypes[i]} ${JSON.stringify(s)} on ${ctx}`,
        inputs,
        params,
        'pass an out= array of the storage type the op produces, or cast the result with tostype()',
      );
    }
    const inplace = (a: NDArray, k: number) =>
      o.stype === 'default' &&
      a.stype === 'default' &&
      a.byteOffset === o.byteOffset &&
      a.dtype === o.dtype &&
      a.shape.length === o.shape.length &&
      a.shape.every((d, j) => d === o.shape[j]) &&
      op.inplaceOption(attrs).some(([x, y]) => x === k && y === i);
    if (inputs.some((a, k) => a.chunk === o.chunk && !inplace(a, k))) {
      throw callError(
        op,
        `out= array ${i} is also an input: in-place writes with sparse storage are not supported`,
        inputs,
        params,
        'write into a new array',
      );
    }
  });
}

/**
 * MXNet's storage fallback: densify, run the dense kernel, cast back. `out=` arrays receive the
 * results (cast into their storage type).
 */
function fallback(
  rt: Runtime,
  op: Op,
  attrs: Readonly<Record<string, unknown>>,
  inputs: readonly NDArray[],
  params: Params,
  options: InvokeOptions,
  outArg: readonly NDArray[] | undefined,
  isTrain: boolean,
  ctx: Context,
  inSt: StorageType[],
  outSt: StorageType[],
  kernel: Kernel | undefined,
): Result {
  if (kernel?.compute === undefined) {
    throw callError(
      op,
      `no sparse kernel for ${op.name} with storage types (${inSt.join(', ')}) → (${outSt.join(', ')}), and no dense kernel to fall back to`,
      inputs,
      params,
      `backends with a kernel: ${rt.registry.backendsFor(op).join(', ') || 'none'}`,
    );
  }
  if (outArg !== undefined && options.req === 'add' && outArg.some((o) => isSparse(o))) {
    throw callError(
      op,
      'req=add into a sparse out= array is not supported',
      inputs,
      params,
      'add the result explicitly',
    );
  }
  const mutated = op.mutateInputs(attrs).filter((i) => isSparse(inputs[i] as NDArray));
  if (mutated.length > 0) {
    throw callError(
      op,
      `no sparse kernel for ${op.name} with storage types (${inSt.join(', ')}), and it writes its sparse input(s) ${mutated.join(', ')} in place, which the dense fallback cannot do`,
      inputs,
      params,
      'pass dense arrays (asDense()) and cast the result back',
    );
  }
  logFallback(rt, op, params, inSt, outSt, ctx);
  const castOp = rt.registry.get('cast_storage');
  const temps: NDArray[] = [];
  const denseIn = inputs.map((a) => {
    if (!isSparse(a)) return a;
    const d = invokeOp(rt, castOp, [a], { stype: 'default' }, {}, isTrain).outputs[0] as NDArray;
    temps.push(d);
    return d;
  });
  try {
    const direct =
      outArg !== undefined && outSt.every((t) => t === 'default') && outArg.every((o) => !isSparse(o));
    const r = invokeOp(
      rt,
      op,
      denseIn,
      params,
      direct
        ? { ...options, denseOnly: true }
        : { ...options, out: undefined, req: undefined, denseOnly: true },
      isTrain,
    );
    if (direct) return r;
    const outputs = r.outputs.map((o, i) => {
      const target = outArg?.[i];
      const st = target?.stype ?? (outSt[i] as StorageType);
      if (st === 'default' && target === undefined) return o;
      temps.push(o);
      return invokeOp(rt, castOp, [o], { stype: st }, { out: target, req: options.req }, isTrain)
        .outputs[0] as NDArray;
    });
    return { ...r, outputs };
  } finally {
    for (const t of temps) t.dispose();
  }
}

/** MXNet's `LogStorageFallback`: once per distinct text, unless MXNET_STORAGE_FALLBACK_LOG_VERBOSE=0. */
function logFallback(
  rt: Runtime,
  op: Op,
  params: Params,
  inSt: StorageType[],
  outSt: StorageType[],
  ctx: Context,
): void {
  if (!rt.env.get('MXNET_STORAGE_FALLBACK_LOG_VERBOSE')) return;
  const list = (ts: StorageType[]) => `[${ts.map((t) => `${t}, `).join('')}]`;
  const dict = Object.entries(params ?? {})
    .map(([k, v]) => `"${k}" : ${String(v)}, `)
    .join('');
  const text =
    `\nStorage type fallback detected:\noperator = ${op.name}\ninput storage types = ${list(inSt)}\n` +
    `output storage types = ${list(outSt)}\nparams = {${dict}}\ncontext.dev_mask = ${ctx.deviceType === 'gpu' ? 'gpu' : 'cpu'}` +
    '\n WARNING:\nExecution of the operator above will fallback to the generic implementation with default dense ' +
    'storage type. You are seeing this warning message because the operator above is unable to process the given ' +
    'ndarrays with specified storage types, context and/or parameter, in which case temporary dense ndarrays are ' +
    'generated in order to execute the operator. The fallback does not affect the correctness of the programme. ' +
    'Using default storage type performance degradation might be observed. \nYou can set environment variable ' +
    'MXNET_STORAGE_FALLBACK_LOG_VERBOSE to 0 to suppress this warning.';
  if (rt.fallbackLogged.has(text)) return;
  rt.fallbackLogged.add(text);
  console.warn(text);
}
