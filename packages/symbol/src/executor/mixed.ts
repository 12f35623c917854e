/**
 * Running a bound graph that holds sparse entries (MXNet's GraphExecutor with storage fallback and
 * `FComputeEx` op executors). The nodes storage inference marks (storage.ts: they dispatch
 * fcomputeEx or fallback) run one by one through the runtime's `invoke` — the same storage
 * dispatch as `nd` calls (@mx/ndarray `invoke-sparse.ts`), computeEx kernel or logged fallback —
 * and every other node runs on the planned dense path, unchanged.
 *
 * The dense nodes become one subgraph run by one GraphRunner: copies of the dense op nodes in the
 * bound graph's order, each with a control dependency on the previous one so that the subgraph's
 * DFS order is that order and a range of the bound graph maps to a range of the subgraph. An entry
 * an imperative node makes and a dense node reads becomes a variable of the subgraph, bound to
 * the array the imperative node writes; entries imperative nodes (or the caller) read from dense
 * nodes are subgraph outputs, so the plan keeps them. Memory planning thus covers the dense
 * entries only: sparse entries have no size before they are computed (MXNet: kDynamicStorageID).
 *
 * Imperative nodes write into fixed arrays (`out=`) — the arrays bound to their entries
 * (gradients, a CachedOp call's outputs) or arrays of the inferred storage type the runner keeps
 * — so dense readers see stable memory and outputs keep their identity across runs. Where a bound
 * array has another storage type than inferred, or its gradient is added to (gradReq 'add'), the
 * result is computed into a temporary and cast into it (MXNet's output storage fallback).
 */
import { type Context, type DTypeName, MXNetError, type Shape, shapeToString } from '@mx/base';
import { entry, GraphNode, IndexedGraph, type NodeEntry, planMemory } from '@mx/graph';
import {
  createGraphRunner,
  type GraphRunner,
  type GraphRunOptions,
  type NDArray,
  type Runtime,
  unusedEntries,
} from '@mx/ndarray';
import type { Op, StorageType } from '@mx/ops';
import { invokeParams } from '../cached-op/inline.js';
import type { GraphSettings } from './settings.js';
import type { GraphStorage } from './storage.js';

export interface MixedRunnerOptions {
  /** The bound graph (forward, or forward + backward). */
  readonly graph: IndexedGraph;
  readonly shapes: readonly (Shape | undefined)[];
  readonly dtypes: readonly (DTypeName | undefined)[];
  readonly storage: GraphStorage;
  readonly ctx: Context;
  /** Arrays of every variable and of op outputs bound to the caller's arrays, by entry id. */
  readonly external: ReadonlyMap<number, NDArray>;
  /** External op outputs added into (gradReq 'add'). */
  readonly addTo?: ReadonlySet<number>;
  readonly needGrad?: boolean;
  readonly bulkSize?: number;
  readonly inferenceBulkSize?: number;
  readonly plan: GraphSettings['plan'];
}

/** One imperative node, prepared once. */
interface Call {
  readonly nid: number;
  readonly name: string;
  readonly op: Op;
  readonly params: Record<string, string>;
  readonly inEntries: readonly number[];
  readonly outEntries: readonly number[];
}

/** What a run of a node range does, in order. */
type Action = { readonly dense: readonly [number, number] } | { readonly call: Call };

/** An array of `stype` (zeros when sparse, uninitialized when dense). */
export function emptyOf(
  rt: Runtime,
  shape: Shape,
  dtype: DTypeName,
  stype: StorageType,
  ctx: Context,
  site: string,
): NDArray {
  return stype === 'default'
    ? rt.empty(shape, dtype, ctx, site)
    : rt.nd.sparse.zeros(stype as 'csr', shape, { dtype: dtype as 'float32', ctx });
}

/** Copy (write) or add `value` into `dst`, whatever the storage types of both. */
export function storeInto(rt: Runtime, value: NDArray, dst: NDArray, add: boolean): void {
  if (add) {
    const sum = rt.invoke('elemwise_add', [dst, value])[0] as NDArray;
    try {
      storeInto(rt, sum, dst, false);
    } finally {
      sum.dispose();
    }
    return;
  }
  if (value.stype === 'default' && dst.stype === 'default') value.copyTo(dst);
  else rt.invoke('cast_storage', [value], { stype: dst.stype }, { out: dst });
}

/** A bound graph with sparse entries, ready to run any node range (same surface as GraphRunner). */
export class MixedRunner {
  readonly graph: IndexedGraph;
  readonly #rt: Runtime;
  readonly #o: MixedRunnerOptions;
  readonly #external: Map<number, NDArray>;
  readonly #addTo: ReadonlySet<number>;
  /** Arrays the runner keeps for imperative outputs not bound outside. */
  readonly #slots = new Map<number, NDArray>();
  /** Per bound-graph entry: its entry in the subgraph (-1: none). */
  readonly #subEntry: Int32Array;
  /** Per bound-graph node: its node in the subgraph (-1: imperative or variable). */
  readonly #subNode: Int32Array;
  readonly #calls: (Call | undefined)[];
  readonly #runner: GraphRunner | undefined;
  /** Subgraph variables standing for imperative outputs: bound-graph entry → subgraph entry. */
  readonly #bridges = new Map<number, number>();
  readonly #programs = new Map<string, Action[]>();
  #disposed = false;

  constructor(rt: Runtime, o: MixedRunnerOptions) {
    const idx = o.graph;
    this.graph = idx;
    this.#rt = rt;
    this.#o = o;
    this.#external = new Map(o.external);
    this.#addTo = o.addTo ?? new Set();
    const { imperative, stypes } = o.storage;
    this.#subEntry = new Int32Array(idx.numNodeEntries).fill(-1);
    this.#subNode = new Int32Array(idx.nodes.length).fill(-1);
    this.#calls = idx.nodes.map(({ node, inputs }, nid) => {
      if (node.op === null || imperative[nid] !== 1) return undefined;
      const first = idx.rowPtr[nid] as number;
      return {
        nid,
        name: node.name,
        op: node.op,
        params: invokeParams(node.attrs),
        inEntries: inputs.map((e) => idx.entryId(e)),
        outEntries: Array.from({ length: node.numOutputs() }, (_, k) => first + k),
      };
    });
    try {
      for (const c of this.#calls) {
        if (c === undefined) continue;
        for (const eid of c.outEntries) {
          if (this.#external.has(eid)) continue;
          const a = rt.keep(
            emptyOf(
              rt,
              o.shapes[eid] as Shape,
              o.dtypes[eid] as DTypeName,
              stypes[eid] as StorageType,
              o.ctx,
              'graph',
            ),
          );
          this.#slots.set(eid, a);
        }
      }
      this.#runner = this.#buildDense();
    } catch (e) {
      for (const a of this.#slots.values()) a.dispose();
      throw e;
    }
  }

  /** Bytes of the dense subgraph's planned memory (sparse entries and kept outputs excluded). */
  get plannedBytes(): number {
    return this.#runner?.plannedBytes ?? 0;
  }

  get isDisposed(): boolean {
    return this.#disposed;
  }

  /** The array holding an entry: bound outside, kept for an imperative output, or the dense runner's. */
  array(eid: number): NDArray {
    this.#checkLive('array');
    const a = this.#external.get(eid) ?? this.#slots.get(eid);
    if (a !== undefined) return a;
    const sub = this.#subEntry[eid];
    if (sub === undefined || sub < 0 || this.#runner === undefined) {
      throw new MXNetError(`entry ${eid} is not in the graph`, { op: 'GraphRunner' });
    }
    return this.#runner.array(sub);
  }

  /** Push the nodes with ids in [from, to): dense stretches as bulked engine ops, the others one by one. */
  run(from = 0, to: number = this.graph.nodes.length, options?: GraphRunOptions): void {
    this.#checkLive('run');
    const isTrain = options?.isTrain === true;
    const run = () => {
      for (const a of this.#program(from, to)) {
        if ('dense' in a) (this.#runner as GraphRunner).run(a.dense[0], a.dense[1], options);
        else this.#invoke(a.call, isTrain);
      }
    };
    // The nodes are parts of one graph call: never recorded by autograd on their own.
    this.#rt.autograd.pause(run, { trainMode: isTrain });
  }

  /** The node names of each engine op (imperative nodes: one each) a run of [from, to) pushes. */
  segments(from = 0, to: number = this.graph.nodes.length, options?: GraphRunOptions): string[][] {
    this.#checkLive('segments');
    return this.#program(from, to).flatMap((a) =>
      'dense' in a
        ? (this.#runner as GraphRunner).segments(a.dense[0], a.dense[1], options)
        : [[a.call.name]],
    );
  }

  /** Bind other arrays to external entries (as GraphRunner.rebind); a bad array changes nothing. */
  rebind(arrays: ReadonlyMap<number, NDArray>): void {
    this.#checkLive('rebind');
    const { shapes, dtypes, ctx } = this.#o;
    const sub = new Map<number, NDArray>();
    for (const [eid, a] of arrays) {
      const old = this.#external.get(eid);
      if (old === undefined) {
        throw new MXNetError(`entry ${eid}: is not bound to an external array, so it cannot be rebound`, {
          op: 'GraphRunner.rebind',
          hint: 'rebind only entries given in `external` when the runner was created',
        });
      }
      const s = shapes[eid] as Shape;
      const t = dtypes[eid] as DTypeName;
      a.checkLive('GraphRunner.rebind');
      const fits = a.shape.length === s.length && a.shape.every((d, i) => d === s[i]);
      // The dispatch of every node was decided for the storage types bound first.
      if (!fits || a.dtype !== t || a.ctx !== ctx || a.stype !== old.stype || a.runtime !== this.#rt) {
        throw new MXNetError(
          `entry ${eid}: expected ${old.stype} ${t} ${shapeToString(s)} on ${ctx}, given ${a.stype} ${a.dtype} ${shapeToString(a.shape)} on ${a.ctx}`,
          { op: 'GraphRunner.rebind', shapes: [s, a.shape], dtypes: [t, a.dtype], device: ctx.toString() },
        );
      }
      const se = this.#subEntry[eid] as number;
      if (se >= 0 && this.#runner !== undefined) sub.set(se, a);
      const bridge = this.#bridges.get(eid);
      if (bridge !== undefined) sub.set(bridge, a);
    }
    if (sub.size > 0) this.#runner?.rebind(sub);
    for (const [eid, a] of arrays) this.#external.set(eid, a);
  }

  /** Release the runner's memory and kept arrays (after the ops already pushed). External arrays stay. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#runner?.dispose();
    for (const a of this.#slots.values()) a.dispose();
    this.#slots.clear();
    this.#programs.clear();
  }

  [Symbol.dispose](): void {
    this.dispose();
  }

  /** Build the dense subgraph and its runner (undefined when every op node is imperative). */
  #buildDense(): GraphRunner | undefined {
    const idx = this.graph;
    const o = this.#o;
    const { imperative } = o.storage;
    const copies = new Map<number, GraphNode>();
    const vars = new Map<number, GraphNode>();
    const readByImperative = new Uint8Array(idx.numNodeEntries);
    for (const c of this.#calls) if (c !== undefined) for (const e of c.inEntries) readByImperative[e] = 1;
    const varFor = (eid: number, e: NodeEntry): NodeEntry => {
      let v = vars.get(eid);
      if (v === undefined) {
        v = e.node.op === null ? e.node : GraphNode.variable(`${e.node.name}_output${e.index}`);
        vars.set(eid, v);
      }
      return entry(v);
    };
    let prev: GraphNode | undefined;
    const outputs: NodeEntry[] = [];
    const isOutput = new Set<number>();
    for (const e of idx.outputs) isOutput.add(idx.entryId(e));
    idx.nodes.forEach(({ node, inputs }, nid) => {
      if (node.op === null || imperative[nid] === 1) return;
      const ins = inputs.map((e, i) => {
        const src = node.inputs[i] as NodeEntry;
        const copy = copies.get(e.nodeId);
        return copy !== undefined ? entry(copy, e.index) : varFor(idx.entryId(e), src);
      });
      const copy = GraphNode.create(node.op, node.name, node.attrs, ins, prev === undefined ? [] : [prev]);
      copies.set(nid, copy);
      prev = copy;
      for (let k = 0; k < node.numOutputs(); k++) {
        const eid = idx.entryId(nid, k);
        if (readByImperative[eid] === 1 || isOutput.has(eid) || this.#external.has(eid))
          outputs.push(entry(copy, k));
      }
    });
    if (prev === undefined) return undefined;
    if (!outputs.some((e) => e.node === prev)) outputs.push(entry(prev));
    const sub = new IndexedGraph(outputs);
    const n = sub.numNodeEntries;
    const shapes: (Shape | undefined)[] = new Array(n);
    const dtypes: (DTypeName | undefined)[] = new Array(n);
    const external = new Map<number, NDArray>();
    const addTo = new Set<number>();
    const boundOutputs = new Set<number>();
    const place = (eid: number, se: number) => {
      shapes[se] = o.shapes[eid];
      dtypes[se] = o.dtypes[eid];
    };
    for (const [nid, copy] of copies) {
      const snid = sub.nodeId(copy);
      this.#subNode[nid] = snid;
      for (let k = 0; k < copy.numOutputs(); k++) {
        const eid = idx.entryId(nid, k);
        const se = sub.entryId(snid, k);
        this.#subEntry[eid] = se;
        place(eid, se);
        const ext = this.#external.get(eid);
        if (ext !== undefined) {
          external.set(se, ext);
          boundOutputs.add(se);
          if (this.#addTo.has(eid)) addTo.add(se);
        }
      }
    }
    for (const [eid, v] of vars) {
      const se = sub.entryId(sub.nodeId(v));
      place(eid, se);
      if (v.op === null && idx.has(v) && idx.entryId(idx.nodeId(v)) === eid) {
        this.#subEntry[eid] = se;
        external.set(se, this.#external.get(eid) as NDArray);
      } else {
        // An imperative node's output: the array it writes.
        this.#bridges.set(eid, se);
        external.set(se, (this.#external.get(eid) ?? this.#slots.get(eid)) as NDArray);
      }
    }
    const unused = unusedEntries(sub);
    const plan = planMemory(sub, { shapes, dtypes, external: boundOutputs, unused, ...o.plan });
    return createGraphRunner(this.#rt, {
      graph: sub,
      shapes,
      dtypes,
      plan,
      ctx: o.ctx,
      external,
      addTo,
      unused,
      needGrad: o.needGrad,
      bulkSize: o.bulkSize,
      inferenceBulkSize: o.inferenceBulkSize,
    });
  }

  /** The actions of a run of [from, to): maximal dense stretches, and imperative nodes in between. */
  #program(from: number, to: number): Action[] {
    const key = `${from}:${to}`;
    const hit = this.#programs.get(key);
    if (hit !== undefined) return hit;
    const n = this.graph.nodes.length;
    if (!Number.isInteger(from) || !Number.isInteger(to) || from < 0 || to > n || from > to) {
      throw new MXNetError(`node range [${from}, ${to}) is not inside the graph's [0, ${n})`, {
        op: 'GraphRunner.run',
      });
    }
    const actions: Action[] = [];
    let first = -1;
    let last = -1;
    const flush = () => {
      if (first >= 0) actions.push({ dense: [first, last + 1] });
      first = -1;
    };
    for (let nid = from; nid < to; nid++) {
      const call = this.#calls[nid];
      if (call !== undefined) {
        flush();
        actions.push({ call });
        continue;
      }
      const snid = this.#subNode[nid] as number;
      if (snid < 0) continue;
      if (first < 0) first = snid;
      last = snid;
    }
    flush();
    this.#programs.set(key, actions);
    return actions;
  }

  /** The array an imperative node reads for entry `eid`. */
  #input(eid: number): NDArray {
    return this.array(eid);
  }

  /** Run one node through the storage dispatch, writing into its arrays. */
  #invoke(c: Call, isTrain: boolean): void {
    const rt = this.#rt;
    const { stypes } = this.#o.storage;
    const inputs = c.inEntries.map((e) => this.#input(e));
    const targets = c.outEntries.map((e) => this.#external.get(e) ?? (this.#slots.get(e) as NDArray));
    const direct = c.outEntries.every(
      (e, k) => (targets[k] as NDArray).stype === stypes[e] && !this.#addTo.has(e),
    );
    if (direct) {
      rt.invoke(c.op, inputs, c.params, { out: targets, isTrain });
      return;
    }
    const { shapes, dtypes, ctx } = this.#o;
    const temps = c.outEntries.map((e) =>
      emptyOf(rt, shapes[e] as Shape, dtypes[e] as DTypeName, stypes[e] as StorageType, ctx, 'graph'),
    );
    try {
      rt.invoke(c.op, inputs, c.params, { out: temps, isTrain });
      c.outEntries.forEach((e, k) => {
        storeInto(rt, temps[k] as NDArray, targets[k] as NDArray, this.#addTo.has(e));
      });
    } finally {
      for (const t of temps) t.dispose();
    }
  }

  #checkLive(op: string): void {
    if (this.#disposed) {
      throw new MXNetError('this graph runner was disposed', {
        op: `GraphRunner.${op}`,
        hint: 'bind the graph again',
      });
    }
  }
}
