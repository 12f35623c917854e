/**
 * The graph pipeline executors and CachedOps share (MXNet GraphExecutor's `InitGraph` / CachedOp's
 * `SetForwardGraph`+`SetBackwardGraph`): build the bound graph (forward + gradient pass), infer it,
 * fuse elementwise chains when enabled and re-infer, then plan memory. One function, so both get
 * the same graph for the same symbol and settings.
 *
 * A graph that may hold sparse entries (storage.ts `mayBeSparse`) is not fused: a fused kernel is
 * dense-only, and the nodes that see sparse arrays run one by one through the storage dispatch.
 */
import { type IndexedGraph, type MemoryPlan, planMemory } from '@mx/graph';
import { unusedEntries } from '@mx/ndarray';
import type { OpRegistry, StorageType } from '@mx/ops';
import { fuseBound } from './fusion.js';
import { type BoundGraph, buildBoundGraph, type GradReq, type SymbolLayout } from './graph.js';
import { type EntryTypes, inferBound, type KnownVars } from './infer.js';
import type { GraphSettings } from './settings.js';
import { mayBeSparse } from './storage.js';

/** A bound graph ready to plan and run. */
export interface CompiledGraph {
  readonly bound: BoundGraph;
  readonly types: EntryTypes;
  /** Fused nodes in the graph (0 without fusion). */
  readonly fusedNodes: number;
  /** Original op nodes the fused nodes replace. */
  readonly fusedOps: number;
  /** The graph may hold sparse entries: storage inference decides (not fused). */
  readonly mayBeSparse: boolean;
}

/** Storage facts known before the graph is built: the variables' and the bound arrays' stypes. */
export interface KnownStorage {
  /** Storage type of each variable, by node id of the forward graph (arguments and aux states). */
  readonly vars: ReadonlyMap<number, StorageType>;
  /** Some array bound to an op output (a gradient) is sparse. */
  readonly boundSparse?: boolean;
}

/**
 * Build, infer and (with `settings.fusion`) fuse the graph computing the symbol's outputs and the
 * gradients `reqs` ask for. `fwd` is the forward inference from `known`; errors carry `where.op`.
 * Reductions take their elementwise producers as prologue when `where.backend` compiles fused
 * reductions (`registry.compilesFusedReduce`).
 */
export function compileGraph(
  registry: OpRegistry,
  layout: SymbolLayout,
  reqs: readonly GradReq[],
  known: KnownVars,
  fwd: EntryTypes,
  settings: GraphSettings,
  where: { readonly op?: string; readonly storage?: KnownStorage; readonly backend?: string } = {},
): CompiledGraph {
  const { op = 'bind', storage, backend } = where;
  const bound = buildBoundGraph(registry, layout, reqs, settings.aggregateCap);
  const types = inferBound(layout, bound, known, fwd, op);
  const sparse =
    storage !== undefined && (storage.boundSparse === true || mayBeSparse(bound.idx, storage.vars));
  if (!settings.fusion || sparse) return { bound, types, fusedNodes: 0, fusedOps: 0, mayBeSparse: sparse };
  const reduce = backend !== undefined && registry.compilesFusedReduce(backend);
  return { ...fuseBound(registry, bound, types, layout.symbol.outputs.length, reduce), mayBeSparse: false };
}

/** Memory plan of a compiled graph: `external` op outputs (bound gradient arrays) are not planned. */
export function planGraph(
  g: CompiledGraph,
  settings: GraphSettings,
  external: ReadonlySet<number> = new Set(),
): { readonly plan: MemoryPlan; readonly unused: Set<number>; readonly idx: IndexedGraph } {
  const idx = g.bound.idx;
  const unused = unusedEntries(idx);
  const plan = planMemory(idx, {
    shapes: g.types.shapes,
    dtypes: g.types.dtypes,
    external,
    unused,
    ...settings.plan,
  });
  return { plan, unused, idx };
}
