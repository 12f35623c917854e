/**
 * GraphRunner: runs a bound graph (MXNet's `GraphExecutor` op execution / `Imperative::RunGraph`).
 *
 * Binding does everything that does not depend on the values: memory from the plan (memory.ts),
 * one step per op node with its kernel looked up and its dtypes checked as `invoke` checks them,
 * resources requested, reqs fixed (write, add for accumulated gradients, null for outputs nobody
 * reads). `run(from, to)` then pushes a node range as bulked engine ops (program.ts), compiled on
 * the first run of that range and cached. Everything the runner allocated is released by
 * `dispose`; the caller's (external) arrays are never touched.
 *
 * `rebind` swaps the arrays of external entries (a CachedOp binds each call's inputs, outputs and
 * gradients that way): the affected steps are re-bound (step.ts) and only the cached segments that
 * hold them are rebuilt, so a call costs a rebind and a run, not a new runner.
 *
 * It is low-level and public: the symbol package's Executor and Gluon's CachedOp are built on it.
 */
import { type Context, type DTypeName, MXNetError, type Shape } from '@mx/base';
import type { IndexedGraph, MemoryPlan } from '@mx/graph';
import type { TBlob } from '@mx/ops';
import type { NDArray } from '../ndarray.js';
import type { Runtime } from '../runtime.js';
import { allocateMemory, checkExternal, describeEntry, type GraphMemory, windowOn } from './memory.js';
import { buildSegments, makeSegment, type Segment, type Step } from './program.js';
import { bindStep, compileStep } from './step.js';

/** MXNet's `MXNET_EXEC_BULK_EXEC_MAX_NODE_TRAIN` default: nodes per bulk segment in training. */
export const DEFAULT_BULK_SIZE = 15;

export interface GraphRunnerOptions {
  /** The graph (forward, or forward + backward). */
  readonly graph: IndexedGraph;
  /** Shape of every entry, by entry id (all known). */
  readonly shapes: readonly (Shape | undefined)[];
  /** Dtype of every entry, by entry id (all known). */
  readonly dtypes: readonly (DTypeName | undefined)[];
  /** Where each entry lives (@mx/graph `planMemory`). */
  readonly plan: MemoryPlan;
  /** Device the graph runs on; default the runtime's default context. */
  readonly ctx?: Context;
  /**
   * Arrays for entries whose memory comes from outside, by entry id: every variable (arguments,
   * aux states, head gradients) and any op output bound to a caller's array (gradients). Swap
   * them later with {@link GraphRunner.rebind}.
   */
  readonly external?: ReadonlyMap<number, NDArray>;
  /** External op outputs the op adds into instead of overwriting (gradients bound with gradReq 'add'). */
  readonly addTo?: ReadonlySet<number>;
  /** Outputs nobody reads (req null); default {@link unusedEntries} of the graph. */
  readonly unused?: ReadonlySet<number>;
  /** Op nodes per engine op in training runs; default 15 (MXNet's bulk size). */
  readonly bulkSize?: number;
  /** Op nodes per engine op in inference runs; default unlimited (MXNet `MXNET_EXEC_BULK_EXEC_INFERENCE`). */
  readonly inferenceBulkSize?: number;
  /** OpContext.needGrad in training runs (gradients will be computed); default false. */
  readonly needGrad?: boolean;
  /** Reuse the internal buffers of this runner where big enough (MXNet's shared executor pool, for reshape). */
  readonly shared?: GraphRunner;
}

/** Options of {@link GraphRunner.run}. */
export interface GraphRunOptions {
  /** Training mode seen by the kernels (Dropout, BatchNorm); default false. */
  readonly isTrain?: boolean;
  /**
   * Op nodes per engine op for this run; default the runner's (`bulkSize` in training,
   * `inferenceBulkSize` otherwise). CachedOp's separate forward and backward bulk sizes use it.
   */
  readonly bulkSize?: number;
}

/** A cached program: its segments, current as of a rebind version. */
interface Program {
  readonly segments: Segment[];
  version: number;
}

/** Entries no node reads and the graph does not output: their ops get req null. */
export function unusedEntries(idx: IndexedGraph): Set<number> {
  const used = new Uint8Array(idx.numNodeEntries);
  for (const n of idx.nodes) for (const e of n.inputs) used[idx.entryId(e)] = 1;
  for (const e of idx.outputs) used[idx.entryId(e)] = 1;
  const out = new Set<number>();
  for (let nid = 0; nid < idx.nodes.length; nid++) {
    if (idx.nodes[nid]?.node.op === null) continue;
    for (let eid = idx.rowPtr[nid] as number; eid < (idx.rowPtr[nid + 1] as number); eid++)
      if (used[eid] === 0) out.add(eid);
  }
  return out;
}

/**
 * A graph bound to memory, ready to run any node range. Create with {@link createGraphRunner}.
 * Runs are pushed in call order; the engine orders them by the memory they share.
 */
export class GraphRunner {
  readonly graph: IndexedGraph;
  readonly ctx: Context;
  readonly #rt: Runtime;
  readonly #memory: GraphMemory;
  /** Step of each node id (undefined for variables); replaced (never changed) by a rebind. */
  readonly #steps: (Step | undefined)[];
  readonly #programs = new Map<number, Program>();
  readonly #sizedPrograms = new Map<string, Program>();
  readonly #views = new Map<number, NDArray>();
  readonly #external: Map<number, NDArray>;
  readonly #shapes: readonly (Shape | undefined)[];
  readonly #dtypes: readonly (DTypeName | undefined)[];
  /** Node ids reading or writing each entry (built on the first rebind). */
  #users: number[][] | undefined;
  /** Bumped by each rebind that changed something: cached programs of an older one are refreshed. */
  #version = 0;
  readonly #bulkSize: number;
  readonly #inferenceBulkSize: number;
  #disposed = false;

  /** @internal Use {@link createGraphRunner}. */
  constructor(rt: Runtime, options: GraphRunnerOptions) {
    const idx = options.graph;
    this.graph = idx;
    this.#rt = rt;
    this.ctx = options.ctx ?? rt.defaultContext;
    this.#external = new Map(options.external ?? []);
    this.#shapes = options.shapes;
    this.#dtypes = options.dtypes;
    this.#bulkSize = options.bulkSize ?? DEFAULT_BULK_SIZE;
    this.#inferenceBulkSize = options.inferenceBulkSize ?? Number.POSITIVE_INFINITY;
    checkSizes(idx, options);
    const unused = options.unused ?? unusedEntries(idx);
    const addTo = options.addTo ?? new Set<number>();
    for (const eid of addTo) {
      if (!this.#external.has(eid)) {
        throw new MXNetError(`${describeEntry(idx, eid)}: req 'add' needs an external array to add into`, {
          op: 'GraphRunner',
        });
      }
    }
    this.#memory = allocateMemory({
      rt,
      idx,
      shapes: options.shapes,
      dtypes: options.dtypes,
      plan: options.plan,
      ctx: this.ctx,
      external: this.#external,
      unused,
      shared: options.shared === undefined ? undefined : options.shared.#memory.pool,
    });
    try {
      const inputs = {
        rt,
        graph: idx,
        ctx: this.ctx,
        mem: this.#memory,
        options,
        unused,
        addTo,
        external: this.#external,
      };
      this.#steps = idx.nodes.map((_, nid) => compileStep(nid, inputs));
    } catch (e) {
      for (const a of this.#memory.owned) a.dispose();
      throw e;
    }
  }

  /** Number of nodes (variables included); node ids run from 0 to numNodes - 1 in graph order. */
  get numNodes(): number {
    return this.graph.nodes.length;
  }

  /** Bytes of the planned internal storage (external arrays not counted). */
  get plannedBytes(): number {
    return this.#memory.plannedBytes;
  }

  get isDisposed(): boolean {
    return this.#disposed;
  }

  /**
   * The array holding an entry: the external array bound to it, or a view on the runner's memory
   * (owned by the runner, disposed with it). Its values are those of the last run that wrote the
   * entry, until memory shared with later entries is reused — read graph outputs, not intermediates.
   */
  array(eid: number): NDArray {
    this.#checkLive('array');
    const ext = this.#external.get(eid);
    if (ext !== undefined) return ext;
    let v = this.#views.get(eid);
    if (v === undefined) {
      const base = this.#memory.bases[eid];
      const blob = this.#memory.blobs[eid] as TBlob;
      if (base === undefined) throw new MXNetError(`entry ${eid} is not in the graph`, { op: 'GraphRunner' });
      v = this.#rt.keep(windowOn(this.#rt, base, blob.shape, blob.dtype));
      this.#views.set(eid, v);
    }
    return v;
  }

  /**
   * Push the op nodes with ids in [from, to) to the engine, in order, as bulked engine ops; returns
   * at once. Failures surface on the arrays the nodes write (as with any op).
   */
  run(from = 0, to: number = this.graph.nodes.length, options?: GraphRunOptions): void {
    if (this.#disposed) this.#checkLive('run');
    const program = this.#program(from, to, options);
    const isTrain = options?.isTrain === true;
    const engine = this.#rt.engine;
    for (let i = 0; i < program.length; i++) (program[i] as Segment).push(engine, isTrain);
  }

  /** The node names of each engine op one run of [from, to) pushes (tests, profiles). */
  segments(from = 0, to: number = this.graph.nodes.length, options?: GraphRunOptions): string[][] {
    this.#checkLive('segments');
    return this.#program(from, to, options).map((seg) => seg.steps.map((s) => s.node));
  }

  /**
   * Bind other arrays to external entries (MXNet CachedOp binding each call's inputs and outputs):
   * each must have the entry's shape, dtype and device, like the arrays given at creation. Nothing
   * is compiled or allocated: the steps touching a rebound entry get the new blobs and vars, and
   * the cached engine ops (segments) holding them are rebuilt on their next run. Safe with ops
   * already pushed: they run on the arrays they were pushed with (which the caller may dispose at
   * once: an array's memory is freed after the ops pushed on it), and the engine orders the next
   * runs after them through the vars of the runner's own memory. On any bad array it throws an
   * MXNetError and changes nothing.
   */
  rebind(arrays: ReadonlyMap<number, NDArray>): void {
    this.#checkLive('rebind');
    const idx = this.graph;
    const changed: [number, NDArray][] = [];
    for (const [eid, a] of arrays) {
      const old = this.#external.get(eid);
      if (old === undefined) {
        const where =
          Number.isInteger(eid) && eid >= 0 && eid < idx.numNodeEntries
            ? describeEntry(idx, eid)
            : `entry ${eid}`;
        throw new MXNetError(`${where}: is not bound to an external array, so it cannot be rebound`, {
          op: 'GraphRunner.rebind',
          hint: 'rebind only entries given in `external` when the runner was created',
        });
      }
      checkExternal(
        this.#rt,
        idx,
        eid,
        a,
        this.#shapes[eid] as Shape,
        this.#dtypes[eid] as DTypeName,
        this.ctx,
        'GraphRunner.rebind',
      );
      if (a !== old) changed.push([eid, a]);
    }
    if (changed.length === 0) return;
    const mem = this.#memory;
    const users = this.#entryUsers();
    const touched = new Set<number>();
    for (const [eid, a] of changed) {
      this.#external.set(eid, a);
      mem.blobs[eid] = a.blob();
      mem.vars[eid] = a.chunkVar;
      mem.bases[eid] = a;
      for (const nid of users[eid] as number[]) touched.add(nid);
    }
    for (const nid of touched) this.#steps[nid] = bindStep(this.#steps[nid] as Step, mem, this.#external);
    this.#version++;
  }

  /** The compiled program of a range: cached by a number key, or a string key for a given bulk size. */
  #program(from: number, to: number, options: GraphRunOptions | undefined): Segment[] {
    const isTrain = options?.isTrain === true;
    const bulk = options?.bulkSize;
    let program: Program | undefined;
    if (bulk === undefined) {
      const n = this.graph.nodes.length;
      const key = ((isTrain ? n + 1 : 0) + from) * (n + 1) + to;
      program = this.#programs.get(key);
      if (program === undefined) {
        program = this.#compile(from, to, isTrain ? this.#bulkSize : this.#inferenceBulkSize);
        this.#programs.set(key, program);
      }
    } else {
      if (!(bulk >= 1)) {
        throw new MXNetError(`bulkSize must be at least 1, got ${bulk}`, { op: 'GraphRunner.run' });
      }
      const key = `${from}:${to}:${bulk}`;
      program = this.#sizedPrograms.get(key);
      if (program === undefined) {
        program = this.#compile(from, to, bulk);
        this.#sizedPrograms.set(key, program);
      }
    }
    if (program.version !== this.#version) this.#refresh(program);
    return program.segments;
  }

  /**
   * Rebuild the segments of `program` holding steps a rebind replaced. A segment is immutable (the
   * engine may still hold one pushed earlier), so a new one takes its place in the list.
   */
  #refresh(program: Program): void {
    const segments = program.segments;
    const steps = this.#steps;
    for (let i = 0; i < segments.length; i++) {
      const seg = segments[i] as Segment;
      if (seg.steps.every((s) => steps[s.nid] === s)) continue;
      segments[i] = makeSegment(
        seg.steps.map((s) => steps[s.nid] as Step),
        this.ctx,
        this.#memory.vars,
      );
    }
    program.version = this.#version;
  }

  /** Node ids whose step reads or writes each entry. */
  #entryUsers(): number[][] {
    if (this.#users !== undefined) return this.#users;
    const users: number[][] = Array.from({ length: this.graph.numNodeEntries }, () => []);
    for (const s of this.#steps) {
      if (s === undefined) continue;
      for (const eid of [...s.inEntries, ...s.outEntries]) {
        const list = users[eid] as number[];
        if (list[list.length - 1] !== s.nid) list.push(s.nid);
      }
    }
    this.#users = users;
    return users;
  }

  #compile(from: number, to: number, bulkSize: number): Program {
    const n = this.graph.nodes.length;
    if (!Number.isInteger(from) || !Number.isInteger(to) || from < 0 || to > n || from > to) {
      throw new MXNetError(`node range [${from}, ${to}) is not inside the graph's [0, ${n})`, {
        op: 'GraphRunner.run',
      });
    }
    const steps: Step[] = [];
    for (let nid = from; nid < to; nid++) {
      const s = this.#steps[nid];
      if (s !== undefined) steps.push(s);
    }
    return { segments: buildSegments(steps, bulkSize, this.ctx, this.#memory.vars), version: this.#version };
  }

  /** Release the runner's memory (after the ops already pushed on it). External arrays stay. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const v of this.#views.values()) v.dispose();
    this.#views.clear();
    for (const a of this.#memory.owned) a.dispose();
    this.#programs.clear();
    this.#sizedPrograms.clear();
  }

  [Symbol.dispose](): void {
    this.dispose();
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

/** Bind a graph to memory and compile its steps (see {@link GraphRunnerOptions}). */
export function createGraphRunner(rt: Runtime, options: GraphRunnerOptions): GraphRunner {
  return new GraphRunner(rt, options);
}

function checkSizes(idx: IndexedGraph, o: GraphRunnerOptions): void {
  const n = idx.numNodeEntries;
  const bad =
    o.shapes.length !== n
      ? `shapes has ${o.shapes.length} entries`
      : o.dtypes.length !== n
        ? `dtypes has ${o.dtypes.length} entries`
        : o.plan.storageId.length !== n
          ? `the memory plan has ${o.plan.storageId.length} entries`
          : undefined;
  if (bad !== undefined) {
    throw new MXNetError(`${bad}; the graph has ${n}`, {
      op: 'GraphRunner',
      hint: 'infer shapes/dtypes and plan memory on this same graph',
    });
  }
}
