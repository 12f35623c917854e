/**
 * Imperative invoke (MXNet `Imperative::Invoke`): what every operator call on NDArrays does.
 *
 * Parse params, check the inputs (live, one device), infer output shapes and dtypes, find the
 * backend's kernel and check its dtypes, allocate outputs (or use `out`), then push one engine op
 * that reads the input chunks' vars and writes the output chunks' vars (plus the vars of requested
 * resources). The call returns as soon as the op is pushed; a failure inside the kernel is stored
 * by the engine on the outputs and surfaces when they are read, as in MXNet. Calls involving sparse
 * storage take one branch into sparse/invoke-sparse.ts (storage-type dispatch). Everything that can be
 * checked before pushing is checked before anything is allocated, so a bad call changes nothing.
 */
import { type Context, DType, type DTypeName, MXNetError, type Shape } from '@mx/base';
import { FnProperty, type Var } from '@mx/engine';
import {
  type DynamicOutput,
  type Kernel,
  type Op,
  type OpContext,
  OpReq,
  type OpReqType,
  type TBlob,
} from '@mx/ops';
import type { ArrayClass, NDArray } from './ndarray.js';
import type { Runtime } from './runtime.js';
import { invokeSparse, needsStorageDispatch } from './sparse/invoke-sparse.js';

export interface InvokeOptions {
  /** Write into these arrays instead of allocating (MXNet `out=`). */
  readonly out?: NDArray | readonly NDArray[];
  /** With `out`: `write` (default) overwrites, `add` accumulates (MXNet kAddTo). */
  readonly req?: 'write' | 'add';
  /** Device for ops without inputs (creation ops); default: the `ctx` param, else the runtime's default. */
  readonly ctx?: Context;
  /** Training mode passed to the kernel (OpContext.isTrain); default the autograd training flag. */
  readonly isTrain?: boolean;
  /** @internal Outputs nobody reads (req null): backward ops skip computing them. */
  readonly skip?: readonly boolean[];
  /** @internal The storage fallback's dense call: never storage-dispatched again. */
  readonly denseOnly?: boolean;
  /**
   * @internal The class of the new output arrays (np's `ndarray` for calls from the np namespace or
   * on np arrays, MXNet's per-call output class); default NDArray. Ignored for `out=` arrays.
   */
  readonly arrayClass?: ArrayClass;
}

export function callError(
  op: Op,
  message: string,
  inputs: readonly NDArray[],
  params: unknown,
  hint?: string,
): MXNetError {
  return new MXNetError(message, {
    op: op.name,
    params: (params ?? {}) as Record<string, unknown>,
    shapes: inputs.map((a) => a.shape),
    dtypes: inputs.map((a) => a.dtype),
    device: inputs[0]?.ctx.toString(),
    hint,
  });
}

/** Run `op` on `inputs`; returns all outputs and the number the user sees (the rest are hidden). */
export function invokeOp(
  rt: Runtime,
  op: Op,
  inputs: readonly NDArray[],
  params: Readonly<Record<string, unknown>> | undefined,
  options: InvokeOptions = {},
  isTrain = options.isTrain ?? false,
): { outputs: NDArray[]; visible: number; attrs: Readonly<Record<string, unknown>> } {
  const attrs = op.parseParams(params);
  const ctx = callContext(rt, op, attrs, inputs, params, options.ctx, options.out);
  // Deferred inputs (deferred compute results) are computed first, as MXNet's invoke does.
  for (const a of inputs) if (a.isDeferred) rt.dc.compute(a);
  // A data-dependent output shape (boolean_mask, nonzero): its own, synchronous branch.
  if (op.def.dynamicShape !== undefined && op.isDynamicShape(attrs))
    return invokeDynamic(rt, op, attrs, inputs, params, options, isTrain, ctx);
  // Sparse storage (a sparse input or out= array, or sparse outputs from dense inputs): sparse/.
  if (options.denseOnly !== true && needsStorageDispatch(op, attrs, inputs, options.out)) {
    const r = invokeSparse(rt, op, attrs, inputs, params, options, isTrain, ctx);
    if (r !== undefined) return r;
  }
  const nIn = inputs.length;
  const nOut = op.numOutputs(attrs);
  const { inTypes, outShapes, outTypes } = inferCall(op, attrs, inputs, params, ctx);
  const outArg =
    options.out === undefined
      ? undefined
      : Array.isArray(options.out)
        ? options.out
        : [options.out as NDArray];

  const backend = rt.backendFor(ctx, op.name);
  const kernel: Kernel | undefined = rt.registry.kernel(op, backend.name);
  if (kernel?.compute === undefined) {
    throw callError(
      op,
      `operator ${op.name} has no kernel on backend ${backend.name}`,
      inputs,
      params,
      `backends with a kernel: ${rt.registry.backendsFor(op).join(', ') || 'none'}`,
    );
  }
  const dtypes = kernel.dtypes ?? backend.capabilities.computeDTypes;
  for (const t of [...inTypes, ...outTypes]) {
    if (!dtypes.includes(t as DTypeName)) {
      throw callError(
        op,
        `dtype ${t} is not supported by ${op.name} on ${backend.name} (${ctx})`,
        inputs,
        params,
        `supported: ${dtypes.join(', ')}; cast with astype()`,
      );
    }
  }
  if (kernel.checkDTypes !== undefined) {
    const why = kernel.checkDTypes(attrs, inTypes as DTypeName[], outTypes as DTypeName[]);
    if (why !== undefined) {
      throw callError(
        op,
        `dtypes (${[...inTypes, ...outTypes].join(', ')}) are not supported by ${op.name} on ${backend.name} (${ctx}): ${why}`,
        inputs,
        params,
        'cast with astype()',
      );
    }
  }

  // Outputs.
  let outputs: NDArray[];
  const req: OpReqType[] = new Array(nOut);
  if (outArg !== undefined) {
    if (outArg.length !== nOut)
      throw callError(op, `out= needs ${nOut} array(s), got ${outArg.length}`, inputs, params);
    for (let i = 0; i < nOut; i++) {
      const o = outArg[i] as NDArray;
      o.checkLive(op.name);
      if (o.runtime !== rt) throw foreignError(op, o, `out= array ${i}`, inputs, params);
      const s = outShapes[i] as Shape;
      if (
        o.ctx !== ctx ||
        o.dtype !== outTypes[i] ||
        o.shape.length !== s.length ||
        o.shape.some((d, j) => d !== s[j])
      ) {
        throw callError(
          op,
          `out= array ${i} is ${o.dtype} ${JSON.stringify(o.shape)} on ${o.ctx}; the op produces ${outTypes[i]} ${JSON.stringify(s)} on ${ctx}`,
          inputs,
          params,
        );
      }
      req[i] = options.req === 'add' ? OpReq.add : OpReq.write;
    }
    outputs = outArg as NDArray[];
    const staged = stageOverlaps(rt, op, attrs, inputs, outputs);
    if (staged !== undefined) {
      // Some out= array overlaps an input without being an in-place alias the op allows: compute
      // into temporaries, then copy (or add) them into the out= arrays, as NumPy does for overlap.
      const r = invokeOp(rt, op, inputs, params, { ...options, out: staged.temps, req: 'write' }, isTrain);
      staged.commit(options.req === 'add');
      return { ...r, outputs };
    }
  } else {
    outputs = new Array(nOut);
    const skip = options.skip;
    for (let i = 0; i < nOut; i++) {
      outputs[i] = rt.empty(
        outShapes[i] as Shape,
        outTypes[i] as DTypeName,
        ctx,
        op.name,
        options.arrayClass,
      );
      req[i] = skip?.[i] === true ? OpReq.null : OpReq.write;
    }
  }

  // Vars, blobs, resources.
  const constVars: Var[] = new Array(nIn);
  const inBlobs: TBlob[] = new Array(nIn);
  for (let i = 0; i < nIn; i++) {
    const a = inputs[i] as NDArray;
    constVars[i] = a.chunkVar;
    inBlobs[i] = a.blob();
  }
  const mutateVars: Var[] = new Array(nOut);
  const outBlobs: TBlob[] = new Array(nOut);
  for (let i = 0; i < nOut; i++) {
    const o = outputs[i] as NDArray;
    mutateVars[i] = o.chunkVar;
    outBlobs[i] = o.blob();
  }
  // An out= array the op accumulates into, or that covers only part of its chunk (a view), is read
  // as well as written: the engine then keeps a failed chunk failed instead of letting a partial
  // write make the rest of its (never computed) memory readable.
  if (outArg !== undefined) {
    for (const o of outputs) if (options.req === 'add' || !coversChunk(o)) constVars.push(o.chunkVar);
  }
  // Mutated inputs (optimizer states) are written too.
  for (const i of op.mutateInputs(attrs)) mutateVars.push((inputs[i] as NDArray).chunkVar);
  const kinds = op.resourceRequest(attrs);
  const requested = kinds.length === 0 ? [] : kinds.map((k) => rt.resources.request(ctx, k));
  for (const r of requested) if (r.var !== undefined) mutateVars.push(r.var as Var);

  const compute = kernel.compute;
  const name = op.name;
  try {
    pushKernel(
      rt,
      kernel,
      compute,
      name,
      attrs,
      ctx,
      isTrain,
      inBlobs,
      req,
      outBlobs,
      constVars,
      mutateVars,
      requested,
    );
  } catch (e) {
    // Only a NaiveEngine runs at the push: its failure throws here, so the arrays this call made are
    // never handed out — release them (out= arrays are the caller's and stay).
    if (outArg === undefined) for (const o of outputs) o.dispose();
    throw e;
  }
  return { outputs, visible: op.numVisibleOutputs(attrs), attrs };
}

/**
 * Check a call's inputs (count, live, this runtime's, one device) and return its device: the
 * inputs', else `ctx`, else (MXNet's `GetContext`) the first `out=` array's, else the op's `ctx`
 * param, else the runtime's default — so `_random_uniform({..., out: w})` fills w where it lives.
 */
export function callContext(
  rt: Runtime,
  op: Op,
  attrs: Readonly<Record<string, unknown>>,
  inputs: readonly NDArray[],
  params: unknown,
  ctx: Context | undefined,
  out?: NDArray | readonly NDArray[],
): Context {
  const nIn = op.numInputs(attrs);
  if (inputs.length !== nIn) {
    throw callError(
      op,
      `expected ${nIn} input(s), got ${inputs.length}`,
      inputs,
      params,
      `inputs: ${op.listInputNames(attrs).join(', ')}`,
    );
  }
  if (nIn === 0) {
    const first = Array.isArray(out) ? out[0] : out;
    return ctx ?? first?.ctx ?? rt.contextFromParam((attrs as { ctx?: unknown }).ctx, op.name);
  }
  const first = (inputs[0] as NDArray).ctx;
  for (let i = 0; i < nIn; i++) {
    const a = inputs[i] as NDArray;
    a.checkLive(op.name);
    if (a.runtime !== rt) throw foreignError(op, a, `input ${i}`, inputs, params);
    if (a.ctx !== first) {
      throw callError(
        op,
        `inputs are on different devices (${first} and ${a.ctx}); implicit cross-device use is not allowed`,
        inputs,
        params,
        `copy explicitly first, e.g. x.copyTo(${first})`,
      );
    }
  }
  return first;
}

/** Output shapes and dtypes of a call (MXNet `SetShapeType`); an inference error names the call. */
export function inferCall(
  op: Op,
  attrs: Readonly<Record<string, unknown>>,
  inputs: readonly NDArray[],
  params: unknown,
  ctx: Context,
): { inTypes: DTypeName[]; outShapes: Shape[]; outTypes: DTypeName[] } {
  const nIn = inputs.length;
  const nOut = op.numOutputs(attrs);
  const inShapes: (Shape | undefined)[] = new Array(nIn);
  const inTypes: (DTypeName | undefined)[] = new Array(nIn);
  for (let i = 0; i < nIn; i++) {
    const a = inputs[i] as NDArray;
    inShapes[i] = a.shape;
    inTypes[i] = a.dtype;
  }
  const outShapes: (Shape | undefined)[] = new Array(nOut).fill(undefined);
  const outTypes: (DTypeName | undefined)[] = new Array(nOut).fill(undefined);
  let known: boolean;
  try {
    known = op.inferShape(attrs, inShapes, outShapes) && op.inferType(attrs, inTypes, outTypes);
  } catch (e) {
    if (e instanceof MXNetError && e.shapes === undefined) {
      throw new MXNetError(e.reason, {
        op: op.name,
        params: params as Record<string, unknown>,
        shapes: inputs.map((a) => a.shape),
        dtypes: inputs.map((a) => a.dtype),
        device: ctx.toString(),
        hint: e.hint,
        cause: e,
      });
    }
    throw e;
  }
  if (!known) throw callError(op, 'could not infer the output shapes/dtypes from the inputs', inputs, params);
  return {
    inTypes: inTypes as DTypeName[],
    outShapes: outShapes as Shape[],
    outTypes: outTypes as DTypeName[],
  };
}

function pushKernel(
  rt: Runtime,
  kernel: Kernel,
  compute: NonNullable<Kernel['compute']>,
  name: string,
  attrs: Readonly<Record<string, unknown>>,
  ctx: Context,
  isTrain: boolean,
  inBlobs: TBlob[],
  req: OpReqType[],
  outBlobs: TBlob[],
  constVars: Var[],
  mutateVars: Var[],
  requested: OpContext['requested'],
): void {
  if (kernel.execType === 'async') {
    rt.engine.pushAsync(
      (runCtx, onComplete) => {
        const opCtx: OpContext = {
          isTrain,
          needGrad: false,
          ctx,
          requested,
          onComplete,
          setBlockingWait: (w) => runCtx.setBlockingWait(w),
        };
        compute(attrs, opCtx, inBlobs, req, outBlobs);
      },
      ctx,
      constVars,
      mutateVars,
      kernel.ioBound === true ? { name, prop: FnProperty.async } : { name },
    );
  } else {
    // A synchronous kernel runs on this thread whenever it runs, so nothing is gained by deferring it
    // to the engine's drain: pushed with the `async` property, the engine runs it at once when its
    // variables are idle (tfjs-style eager execution: short-lived temporaries, warm caches) and
    // queues it behind unfinished work otherwise (an asynchronous kernel, a GPU op).
    const opCtx: OpContext =
      requested.length === 0 ? rt.opContext(ctx, isTrain) : { isTrain, needGrad: false, ctx, requested };
    rt.engine.pushSync(() => compute(attrs, opCtx, inBlobs, req, outBlobs), ctx, constVars, mutateVars, {
      name,
      prop: FnProperty.async,
    });
  }
}

/**
 * An op whose output shape depends on the data (`OpDef.dynamicShape`, MXNet's ops that call
 * `NDArray::Init(shape)` in their kernel): wait for the inputs, run the kernel here on this thread
 * — it allocates each output through `DynamicOutput.alloc` — and return the outputs with their
 * shapes. Needs a backend that can block; elsewhere an MXNetError names the async form. A kernel
 * failure (a data-dependent check) throws here, and nothing it allocated is kept.
 */
function invokeDynamic(
  rt: Runtime,
  op: Op,
  attrs: Readonly<Record<string, unknown>>,
  inputs: readonly NDArray[],
  params: unknown,
  options: InvokeOptions,
  isTrain: boolean,
  ctx: Context,
): { outputs: NDArray[]; visible: number; attrs: Readonly<Record<string, unknown>> } {
  if (options.out !== undefined)
    throw callError(
      op,
      'out= is not supported: the output shape depends on the input values',
      inputs,
      params,
    );
  const nOut = op.numOutputs(attrs);
  const outTypes: (DTypeName | undefined)[] = new Array(nOut).fill(undefined);
  const inTypes: (DTypeName | undefined)[] = inputs.map((a) => a.dtype);
  try {
    // Shape inference checks the inputs' shapes (its -1 dims are the kernel's to decide).
    op.inferShape(
      attrs,
      inputs.map((a) => a.shape),
      new Array(nOut).fill(undefined),
    );
    if (!op.inferType(attrs, inTypes, outTypes) || outTypes.includes(undefined))
      throw callError(op, 'could not infer the output dtypes from the inputs', inputs, params);
  } catch (e) {
    if (e instanceof MXNetError && e.shapes === undefined)
      throw callError(op, e.reason, inputs, params, e.hint);
    throw e;
  }
  const backend = rt.backendFor(ctx, op.name);
  const compute = rt.registry.kernel(op, backend.name)?.computeDynamic;
  if (compute === undefined) {
    throw callError(
      op,
      `operator ${op.name} has no kernel on backend ${backend.name}`,
      inputs,
      params,
      `backends with a kernel: ${rt.registry.backendsFor(op).join(', ') || 'none'}`,
    );
  }
  if (!backend.capabilities.syncRead) {
    throw callError(
      op,
      `the output shape of ${op.name} depends on the input values, and ${backend.name} (${ctx}) cannot wait for them synchronously`,
      inputs,
      params,
      'use the async form: await x.getAsync(mask) for boolean indexing, await np.nonzeroAsync(x) for nonzero',
    );
  }
  for (const a of inputs) rt.engine.waitForVarSync(a.chunkVar, { sticky: true });
  const outputs: (NDArray | undefined)[] = new Array(nOut).fill(undefined);
  const dynamic = outTypes.map((dtype, i): DynamicOutput => {
    let blob: TBlob | undefined;
    return {
      dtype: dtype as DTypeName,
      alloc(shape) {
        if (blob !== undefined) throw callError(op, `output ${i} was allocated twice`, inputs, params);
        const a = rt.empty(shape, dtype as DTypeName, ctx, op.name, options.arrayClass);
        outputs[i] = a;
        blob = a.blob();
        return blob;
      },
      get blob() {
        if (blob === undefined) throw callError(op, `output ${i} read before alloc`, inputs, params);
        return blob;
      },
    };
  });
  try {
    const req = outputs.map((_, i) => (options.skip?.[i] === true ? OpReq.null : OpReq.write));
    compute(
      attrs,
      rt.opContext(ctx, isTrain),
      inputs.map((a) => a.blob()),
      req,
      dynamic,
    );
    outputs.forEach((o, i) => {
      if (o === undefined)
        throw callError(op, `the kernel on ${backend.name} did not allocate output ${i}`, inputs, params);
    });
  } catch (e) {
    for (const o of outputs) o?.dispose();
    throw e;
  }
  return { outputs: outputs as NDArray[], visible: op.numVisibleOutputs(attrs), attrs };
}

function foreignError(
  op: Op,
  a: NDArray,
  what: string,
  inputs: readonly NDArray[],
  params: unknown,
): MXNetError {
  return callError(
    op,
    `${what} (${a.describe()}) belongs to another runtime`,
    inputs,
    params,
    'arrays cannot be shared between runtimes: copy the values over (e.g. nd.array(await x.data(), { shape: x.shape }))',
  );
}

/** True when `a` spans its whole chunk (writing it overwrites everything the chunk holds). */
export function coversChunk(a: NDArray): boolean {
  return a.byteOffset === a.chunk.byteOffset && a.size * DType[a.dtype].bytes === a.chunk.bytes;
}

/** Byte range of an array in its chunk. */
function byteRange(a: NDArray): [number, number] {
  return [a.byteOffset, a.byteOffset + a.size * DType[a.dtype].bytes];
}

/**
 * Out= arrays that overlap an input's memory. An exact alias (same window, shape and dtype) is
 * fine when the op declares that input/output pair in-place (MXNet `FInplaceOption`: elementwise
 * ops, activations...); any other overlap (a shifted view, a broadcast operand inside the output,
 * `dot(a, b, out=a)`) would let the kernel read values it already overwrote. Returns temporaries to
 * compute into and a commit that moves them into the out= arrays, or undefined when nothing overlaps.
 */
function stageOverlaps(
  rt: Runtime,
  op: Op,
  attrs: Readonly<Record<string, unknown>>,
  inputs: readonly NDArray[],
  outputs: readonly NDArray[],
): { temps: NDArray[]; commit(add: boolean): void } | undefined {
  let staged: boolean[] | undefined;
  let inplace: readonly (readonly [number, number])[] | undefined;
  for (let o = 0; o < outputs.length; o++) {
    const out = outputs[o] as NDArray;
    if (out.size === 0) continue;
    const [ob, oe] = byteRange(out);
    for (let i = 0; i < inputs.length; i++) {
      const a = inputs[i] as NDArray;
      if (a.chunk !== out.chunk || a.size === 0) continue;
      const [ib, ie] = byteRange(a);
      if (ie <= ob || oe <= ib) continue;
      const same =
        ib === ob &&
        ie === oe &&
        a.dtype === out.dtype &&
        a.shape.length === out.shape.length &&
        a.shape.every((d, k) => d === out.shape[k]);
      inplace ??= op.inplaceOption(attrs);
      if (same && inplace.some(([x, y]) => x === i && y === o)) continue;
      staged ??= new Array(outputs.length).fill(false);
      staged[o] = true;
    }
  }
  if (staged === undefined) return undefined;
  const flags = staged;
  const temps = outputs.map((out, o) => (flags[o] ? rt.empty(out.shape, out.dtype, out.ctx, op.name) : out));
  return {
    temps,
    commit(add: boolean): void {
      for (let o = 0; o < outputs.length; o++) {
        if (!flags[o]) continue;
        const out = outputs[o] as NDArray;
        const t = temps[o] as NDArray;
        // Not recorded: the caller's op is what autograd sees.
        if (add) invokeOp(rt, rt.registry.get('elemwise_add'), [out, t], undefined, { out });
        else rt.copy(t, out);
        t.dispose();
      }
    },
  };
}
