/**
 * Compiling one op node of a bound graph into a `Step` (program.ts), in two parts so that binding
 * new arrays to external entries (`GraphRunner.rebind`) does not compile anything again:
 *
 * - `compileStep` does what depends only on the graph, shapes and dtypes: the kernel lookup and
 *   dtype checks `invoke` does, the reqs, the resources and op contexts (MXNet's `OpExecutor`
 *   setup at bind time);
 * - `bindStep` fills in what depends on the memory: the blobs the kernel reads and writes, and the
 *   engine vars besides the inputs' and outputs' (accumulated or partially written outputs are
 *   also read; mutated inputs are written). A rebind makes a new Step with `bindStep`; the old one
 *   stays as it was for the engine ops already pushed with it.
 */
import { type Context, type DTypeName, MXNetError, type Shape } from '@mx/base';
import type { Var } from '@mx/engine';
import type { IndexedGraph } from '@mx/graph';
import { type Kernel, type OpContext, OpReq, type OpReqType, type TBlob } from '@mx/ops';
import { coversChunk } from '../invoke.js';
import type { NDArray } from '../ndarray.js';
import type { Runtime } from '../runtime.js';
import type { GraphMemory } from './memory.js';
import type { Step } from './program.js';

/** What compileStep reads besides the node. */
export interface StepInputs {
  readonly rt: Runtime;
  /** The runner's graph and device. */
  readonly graph: IndexedGraph;
  readonly ctx: Context;
  readonly mem: GraphMemory;
  /** The runner's options that steps read (GraphRunnerOptions). */
  readonly options: {
    readonly shapes: readonly (Shape | undefined)[];
    readonly dtypes: readonly (DTypeName | undefined)[];
    readonly needGrad?: boolean;
  };
  readonly unused: ReadonlySet<number>;
  readonly addTo: ReadonlySet<number>;
  readonly external: ReadonlyMap<number, NDArray>;
}

/** The step of node `nid` (undefined for a variable), bound to the memory as it is now. */
export function compileStep(nid: number, s: StepInputs): Step | undefined {
  const { rt, graph: idx, ctx, options, unused, addTo, external } = s;
  const { node, inputs } = idx.nodes[nid] as IndexedGraph['nodes'][number];
  const op = node.op;
  if (op === null) return undefined;
  const attrs = node.parsed;
  const inEntries = inputs.map((e) => idx.entryId(e));
  const nOut = node.numOutputs();
  const first = idx.rowPtr[nid] as number;
  const outEntries = Array.from({ length: nOut }, (_, i) => first + i);
  const inTypes = inEntries.map((e) => options.dtypes[e] as DTypeName);
  const outTypes = outEntries.map((e) => options.dtypes[e] as DTypeName);
  const fail = (message: string, hint?: string): never => {
    throw new MXNetError(`node ${node.name} (${op.name}): ${message}`, {
      op: op.name,
      params: node.attrs,
      shapes: inEntries.map((e) => options.shapes[e] as Shape),
      dtypes: inTypes,
      device: ctx.toString(),
      hint,
    });
  };
  if (op.def.crossDeviceCopy) fail('cross-device copies are not supported inside a bound graph yet');
  const backend = rt.backendFor(ctx, op.name);
  const kernel: Kernel | undefined = rt.registry.kernel(op, backend.name);
  if (kernel?.compute === undefined) {
    fail(
      `operator ${op.name} has no kernel on backend ${backend.name}`,
      `backends with a kernel: ${rt.registry.backendsFor(op).join(', ') || 'none'}`,
    );
  }
  const k = kernel as Kernel;
  const dtypes = k.dtypes ?? backend.capabilities.computeDTypes;
  for (const t of [...inTypes, ...outTypes]) {
    if (!dtypes.includes(t)) {
      fail(
        `dtype ${t} is not supported by ${op.name} on ${backend.name} (${ctx})`,
        `supported: ${dtypes.join(', ')}`,
      );
    }
  }
  const why = k.checkDTypes?.(attrs, inTypes, outTypes);
  if (why !== undefined) {
    fail(
      `dtypes (${[...inTypes, ...outTypes].join(', ')}) are not supported by ${op.name} on ${backend.name}: ${why}`,
    );
  }

  const req: OpReqType[] = outEntries.map((eid) => {
    if (external.has(eid)) return addTo.has(eid) ? OpReq.add : OpReq.write;
    return unused.has(eid) ? OpReq.null : OpReq.write;
  });
  const mutated: number[] = [];
  for (const i of op.mutateInputs(attrs)) {
    const eid = inEntries[i];
    if (eid !== undefined) mutated.push(eid);
  }
  const kinds = op.resourceRequest(attrs);
  const requested = kinds.map((kind) => rt.resources.request(ctx, kind));
  const resourceVars: Var[] = [];
  for (const r of requested) if (r.var !== undefined) resourceVars.push(r.var as Var);
  const needGrad = options.needGrad === true;
  const async = k.execType === 'async';
  const opCtx = (isTrain: boolean): OpContext =>
    requested.length === 0 && !(isTrain && needGrad)
      ? rt.opContext(ctx, isTrain)
      : Object.freeze({
          isTrain,
          needGrad: isTrain && needGrad,
          ctx,
          requested: Object.freeze([...requested]),
        });
  const compiled: Step = {
    nid,
    node: node.name,
    op: op.name,
    compute: k.compute as NonNullable<Kernel['compute']>,
    attrs,
    inputs: [],
    req: Object.freeze(req),
    outputs: [],
    train: opCtx(true),
    predict: opCtx(false),
    async,
    requested: Object.freeze(requested),
    needGrad,
    inEntries,
    outEntries,
    mutatedEntries: mutated,
    resourceVars,
    extraReads: [],
    extraWrites: [],
  };
  return bindStep(compiled, s.mem, external);
}

/**
 * `step` with the blobs and vars of `mem` as it is now (a new object: the old one may still be
 * used by engine ops already pushed). `external` tells which outputs are the caller's arrays.
 */
export function bindStep(step: Step, mem: GraphMemory, external: ReadonlyMap<number, NDArray>): Step {
  const vars = mem.vars;
  const extraReads: Var[] = [];
  step.outEntries.forEach((eid, i) => {
    const ext = external.get(eid);
    // Accumulating, or writing part of a chunk, also reads it (a failed chunk stays failed; invoke.ts).
    if (ext !== undefined && (step.req[i] === OpReq.add || !coversChunk(ext)))
      extraReads.push(vars[eid] as Var);
  });
  const extraWrites: Var[] = step.mutatedEntries.map((eid) => vars[eid] as Var);
  for (const v of step.resourceVars) extraWrites.push(v);
  return {
    ...step,
    inputs: Object.freeze(step.inEntries.map((e) => mem.blobs[e] as TBlob)),
    outputs: Object.freeze(step.outEntries.map((e) => mem.blobs[e] as TBlob)),
    extraReads,
    extraWrites,
  };
}
