/**
 * Recording (MXNet `Imperative::RecordDeferredCompute`): inside `dc.context()` an op call checks
 * what the eager call checks before computing — params, input count, live inputs of this runtime
 * on one device, shape and dtype inference — then adds a node to the graph instead of running a
 * kernel, and returns deferred arrays: shapes and dtypes known, no storage, nothing pushed.
 *
 * MXNet's rules, in its order: autograd must not be recording; every input must be a variable
 * (`dc.setVariable`) or a recorded output; nothing may be written into an existing array. Views
 * (`reshape`, `slice`, `at`) are recorded as the ops MXNet records for them (`Reshape` with the
 * resolved shape, `slice`), and computed as views; copies to a device as `_copyto`.
 */
import { Context, type DTypeName, MXNetError, type Shape } from '@mx/base';
import { entry, GraphNode, type NodeEntry } from '@mx/graph';
import type { Op } from '@mx/ops';
import { callContext, type InvokeOptions, inferCall, invokeOp } from '../invoke.js';
import type { ArrayClass, NDArray, OpParams } from '../ndarray.js';
import type { DeferredCompute } from './deferred-compute.js';
import { AUTOGRAD_MESSAGE, INPUT_MESSAGE, inplaceError, type OpInfo } from './info.js';

/** The view methods recorded as ops (`at` becomes `slice` + `Reshape`). */
export type ViewKind = 'reshape' | 'slice' | 'at';

/** Checks every recording starts with; returns the inputs' graph entries. */
function recordedInputs(dc: DeferredCompute, op: string, inputs: readonly NDArray[]): NodeEntry[] {
  if (dc.runtime.autograd.isRecording) {
    throw new MXNetError(AUTOGRAD_MESSAGE, {
      op,
      hint: 'leave autograd.record() before dc.context(), or pause it (autograd.pause) around the traced code',
    });
  }
  return inputs.map((a, i) => {
    a.checkLive(op);
    const e = a.dcEntry;
    if (e === undefined || dc.infoOf(e.node) === undefined) {
      throw new MXNetError(INPUT_MESSAGE, {
        op,
        shapes: inputs.map((x) => x.shape),
        dtypes: inputs.map((x) => x.dtype),
        device: a.ctx.toString(),
        hint: `input ${i} (${a.describe()}) is a plain array: bind it with dc.setVariable(array, name) before using it in dc.context(), or create it inside`,
      });
    }
    return entry(e.node, e.index);
  });
}

/** A recorded node's deferred outputs, and its info. */
function addNode(
  dc: DeferredCompute,
  node: GraphNode,
  base: Omit<OpInfo, 'kind' | 'outputs' | 'computed'>,
  shapes: readonly Shape[],
  dtypes: readonly DTypeName[],
  cls?: ArrayClass,
): NDArray[] {
  const outputs = shapes.map((s, i) => dc.newDeferred(base.ctx, s, dtypes[i] as DTypeName, node, i, cls));
  dc.addInfo(node, { kind: 'op', ...base, outputs: [...outputs], computed: [] });
  return outputs;
}

/** `rt.invoke` inside the scope: record the call; returns its visible outputs, deferred. */
export function recordCall(
  dc: DeferredCompute,
  op: Op,
  inputs: readonly NDArray[],
  params: OpParams | undefined,
  options: InvokeOptions | undefined,
): NDArray[] {
  const rt = dc.runtime;
  if (op.def.crossDeviceCopy && inputs.length === 1 && options?.out === undefined) {
    return [recordCopy(dc, inputs[0] as NDArray, options?.ctx ?? (inputs[0] as NDArray).ctx)];
  }
  const entries = recordedInputs(dc, op.name, inputs);
  // MXNet refuses a write into an array that has a deferred compute entry; a write into a plain
  // array would have to be deferred into storage that exists already, which we refuse as well.
  if (options?.out !== undefined || options?.req === 'add') {
    const out = options.out;
    throw inplaceError(op.name, Array.isArray(out) ? out[0] : (out as NDArray | undefined));
  }
  const attrs = op.parseParams(params);
  const ctx = callContext(rt, op, attrs, inputs, params, options?.ctx, options?.out);
  if (op.def.dynamicShape !== undefined && op.isDynamicShape(attrs))
    return recordDynamic(dc, op, entries, inputs, params, options, ctx);
  const { outShapes, outTypes } = inferCall(op, attrs, inputs, params, ctx);
  // MXNet's front end passes a creation op its device (`ctx='cpu(0)'`), so the node records it.
  const stored: Record<string, unknown> = { ...params };
  if (inputs.length === 0 && 'ctx' in op.params && stored.ctx === undefined) stored.ctx = ctx.toString();
  const node = GraphNode.fromParams(op, dc.nextNodeName(), stored, entries);
  const visible = op.numVisibleOutputs(attrs);
  return addNode(
    dc,
    node,
    { op, params, ctx, isTrain: options?.isTrain },
    outShapes.slice(0, visible),
    outTypes.slice(0, visible),
    options?.arrayClass,
  );
}

/**
 * A dynamic-shape op inside the scope (docs/design/np.md, "Dynamic shapes"): its inputs are
 * computed (MXNet's `DCInfo::Compute`) and the op runs now, so the node is recorded with the
 * concrete output shape; its outputs are computed arrays that carry the node (reads need nothing
 * more). The recorded graph holds the op itself: a CachedOp runs it op by op on each call's data.
 */
function recordDynamic(
  dc: DeferredCompute,
  op: Op,
  entries: NodeEntry[],
  inputs: readonly NDArray[],
  params: OpParams | undefined,
  options: InvokeOptions | undefined,
  ctx: Context,
): NDArray[] {
  const rt = dc.runtime;
  const isTrain = options?.isTrain ?? rt.autograd.isTraining;
  const prev = dc.setDeferredCompute(false);
  let outputs: NDArray[];
  let visible: number;
  try {
    for (const a of inputs) if (a.isDeferred) dc.computeForRecording(a);
    const opts: InvokeOptions = {
      ctx,
      isTrain,
      ...(options?.arrayClass ? { arrayClass: options.arrayClass } : {}),
    };
    ({ outputs, visible } = invokeOp(rt, op, inputs, params, opts, isTrain));
  } finally {
    dc.setDeferredCompute(prev);
  }
  for (let i = visible; i < outputs.length; i++) (outputs[i] as NDArray).dispose();
  outputs = outputs.slice(0, visible);
  const node = GraphNode.fromParams(op, dc.nextNodeName(), { ...params }, entries);
  outputs.forEach((a, i) => {
    a.dcEntry = { node, index: i };
  });
  dc.addInfo(node, {
    kind: 'op',
    op,
    params,
    ctx,
    isTrain: options?.isTrain,
    outputs: outputs.map(() => undefined),
    computed: outputs.map((a) => ({
      chunk: a.chunk,
      byteOffset: a.byteOffset,
      shape: a.shape,
      dtype: a.dtype,
    })),
  });
  return outputs;
}

/** `x.copyTo(ctx)` inside the scope: a recorded `_copyto`; a copy into an array is a write. */
export function recordCopy(dc: DeferredCompute, src: NDArray, target: Context | NDArray): NDArray {
  const op = dc.runtime.registry.get('_copyto');
  const entries = recordedInputs(dc, op.name, [src]);
  if (!(target instanceof Context)) throw inplaceError('copyTo', target);
  const node = GraphNode.create(op, dc.nextNodeName(), {}, entries);
  const info = { op, params: undefined, ctx: target, isTrain: undefined };
  return addNode(dc, node, info, [src.shape], [src.dtype], src.outputClass)[0] as NDArray;
}

/**
 * A view inside the scope (MXNet `ReshapeWithRecord`, `SliceWithRecord`, `AtWithRecord`): `shape`
 * and `byteDelta` are the view's, as the NDArray method computed them; `index` is `[begin, end)`
 * for `slice` and the integer indices for `at`.
 */
export function recordView(
  dc: DeferredCompute,
  base: NDArray,
  kind: ViewKind,
  shape: Shape,
  byteDelta: number,
  index: readonly number[] = [],
): NDArray {
  const reg = dc.runtime.registry;
  const common = { params: undefined, ctx: base.ctx, isTrain: undefined };
  // MXNet writes a TShape with operator<<: `[2,3]`.
  const tshape = (s: readonly number[]) => `[${s.join(',')}]`;
  if (kind === 'reshape') {
    const op = reg.get('Reshape');
    const node = GraphNode.create(
      op,
      dc.nextNodeName(),
      { shape: tshape(shape) },
      recordedInputs(dc, op.name, [base]),
    );
    return addNode(
      dc,
      node,
      { op, ...common, view: { shape, byteDelta } },
      [shape],
      [base.dtype],
      base.outputClass,
    )[0] as NDArray;
  }
  const slice = reg.get('slice');
  const inputs = recordedInputs(dc, slice.name, [base]);
  if (kind === 'slice') {
    const [b, e] = index as [number, number];
    const node = GraphNode.create(slice, dc.nextNodeName(), { begin: String(b), end: String(e) }, inputs);
    const view = { shape, byteDelta };
    return addNode(
      dc,
      node,
      { op: slice, ...common, view },
      [shape],
      [base.dtype],
      base.outputClass,
    )[0] as NDArray;
  }
  // `at`: a slice keeping the indexed axes as 1s, then a Reshape dropping them. One index is
  // MXNet's `At` (begin/end as ints, Reshape `[-3,-2]`); several write tuples and the final shape.
  const one = index.length === 1;
  const sliceShape = [...index.map(() => 1), ...shape];
  const tuple = (v: readonly number[]) => (one ? String(v[0]) : `(${v.join(', ')})`);
  const sliceNode = GraphNode.create(
    slice,
    dc.nextNodeName(),
    { begin: tuple(index), end: tuple(index.map((i) => i + 1)) },
    inputs,
  );
  const view = { shape: sliceShape, byteDelta };
  const part = addNode(
    dc,
    sliceNode,
    { op: slice, ...common, view },
    [sliceShape],
    [base.dtype],
    base.outputClass,
  )[0] as NDArray;
  const reshape = reg.get('Reshape');
  const magic = one && base.ndim > 1 ? '[-3,-2]' : tshape(shape);
  const node = GraphNode.create(reshape, dc.nextNodeName(), { shape: magic }, [entry(sliceNode, 0)]);
  const out = addNode(
    dc,
    node,
    { op: reshape, ...common, view: { shape, byteDelta: 0 } },
    [shape],
    [base.dtype],
    base.outputClass,
  );
  part.dispose(); // the intermediate is only a graph node; the result keeps it reachable
  return out[0] as NDArray;
}
