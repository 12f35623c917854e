/**
 * `planBind`: what `simpleBind` would build and how much memory it would plan, without allocating
 * anything — the graph (forward + gradient pass, fused), its memory plan and the bytes of the
 * arrays a bind would allocate outside the plan. For sizing a model before binding it (a ResNet-50
 * training graph at batch 32 plans gigabytes) and for the memory benchmark; it runs the same
 * pipeline as a bind, so the figures are the executor's.
 */
import { DType, type DTypeName, Env, type Shape } from '@mx/base';
import type { GraphNode } from '@mx/graph';
import type { OpRegistry } from '@mx/ops';
import { type SimpleBindOptions, simpleBindTypes } from './bind.js';
import { compileGraph, planGraph } from './compile.js';
import { type SymbolLike, symbolLayout } from './graph.js';
import { graphSettings } from './settings.js';

/** Options of {@link planBind}: simpleBind's, plus what would come from a runtime. */
export interface PlanBindOptions extends Pick<SimpleBindOptions, 'shapes' | 'dtypes' | 'gradReq' | 'fusion'> {
  /** Settings (MXNET_EXEC_*, MXNET_USE_FUSION); default no variables set (MXNet's defaults). */
  readonly env?: Env;
  /**
   * The backend the bind would run on (e.g. `'cpu-wasm'`): fusion then also folds elementwise
   * producers into reductions where that backend compiles them, as its executor would. Default none.
   */
  readonly backend?: string;
}

/** The memory figures of a bind (bytes). */
export interface BindPlan {
  /** Nodes of the bound graph (variables included), after fusion. */
  readonly numNodes: number;
  /** Of which op nodes. */
  readonly numOps: number;
  /** Nodes of the forward part. */
  readonly numForward: number;
  /** Fused nodes made, and the op nodes they replaced. */
  readonly fusedNodes: number;
  readonly fusedOps: number;
  /** Memory the plan allocates for internal entries. */
  readonly plannedBytes: number;
  /** The same entries with one buffer each. */
  readonly naiveBytes: number;
  /** Arrays a bind allocates outside the plan. */
  readonly argBytes: number;
  readonly gradBytes: number;
  readonly auxBytes: number;
}

const bytesOf = (s: Shape | undefined, t: DTypeName | undefined): number =>
  s === undefined || t === undefined ? 0 : s.reduce((a, d) => a * d, 1) * DType[t].bytes;

/** Plan `symbol` as `simpleBind(options)` would, without allocating. */
export function planBind(registry: OpRegistry, symbol: SymbolLike, options: PlanBindOptions): BindPlan {
  const layout = symbolLayout(symbol);
  const { reqs, types } = simpleBindTypes(layout, options);
  const settings = graphSettings(
    options.env ?? new Env(),
    options.fusion === undefined ? {} : { fusion: options.fusion },
    'planBind',
  );
  const idx = layout.forward;
  const known = { shapes: new Map<number, Shape>(), dtypes: new Map<number, DTypeName>() };
  let argBytes = 0;
  let gradBytes = 0;
  let auxBytes = 0;
  const note = (n: GraphNode): number => {
    const nid = idx.nodeId(n);
    const eid = idx.entryId(nid);
    const s = types.shapes[eid] as Shape;
    const t = types.dtypes[eid] as DTypeName;
    known.shapes.set(nid, s);
    known.dtypes.set(nid, t);
    return bytesOf(s, t);
  };
  layout.argNodes.forEach((n, i) => {
    const b = note(n);
    argBytes += b;
    if (reqs[i] !== 'null') gradBytes += b;
  });
  for (const n of layout.auxNodes) auxBytes += note(n);
  const compiled = compileGraph(registry, layout, reqs, known, types, settings, {
    op: 'planBind',
    backend: options.backend,
  });
  const gradOut = new Set(compiled.bound.gradEntries.filter((e) => e >= 0));
  const { plan, idx: full } = planGraph(compiled, settings, gradOut);
  return {
    numNodes: full.nodes.length,
    numOps: full.nodes.filter((n) => n.node.op !== null).length,
    numForward: compiled.bound.numForward,
    fusedNodes: compiled.fusedNodes,
    fusedOps: compiled.fusedOps,
    plannedBytes: plan.plannedBytes,
    naiveBytes: plan.naiveBytes,
    argBytes,
    gradBytes,
    auxBytes,
  };
}
