/**
 * `runtime.dc`: MXNet 2.0's deferred compute (`mxnet._deferred_compute`, RFC #16376) for one
 * runtime — what Gluon's `hybridize` traces a block's forward with.
 *
 * Inside `dc.context(() => ...)` every op call on NDArrays records a node of a @mx/graph graph and
 * returns a deferred array: its shape and dtype are inferred at once (so `x.shape` works in traced
 * code), but it holds no storage and nothing is pushed. Reading it (`data`, `dataSync`,
 * `waitToRead`, printing) or using it outside the scope computes exactly the nodes it needs, with
 * the eager kernels (`compute.ts`). `getSymbol` turns the recorded history of some outputs into a
 * `Graph` whose variables are the arrays bound with `setVariable`.
 *
 * MXNet keeps the flag thread-local and its scope is a `with` block; here it is a field of this
 * object and the scope is a synchronous callback (or `using _ = dc.enter()`), since a flag that
 * stayed on across an `await` would record other tasks' calls. Node names come from a counter of
 * this object (`node_0`, `node_1`...), never reset, like MXNet's per-thread counter.
 */
import { type Context, type DTypeName, MXNetError, type Shape, shapeToString } from '@mx/base';
import type { Var } from '@mx/engine';
import { type Graph, GraphNode } from '@mx/graph';
import type { Op } from '@mx/ops';
import { type ArrayClass, makeArray } from '../array-class.js';
import type { InvokeOptions } from '../invoke.js';
import { NDArray, type OpParams } from '../ndarray.js';
import type { Runtime } from '../runtime.js';
import { computeDeferred } from './compute.js';
import { type DCEntry, inplaceError, type NodeInfo } from './info.js';
import { PendingChunk } from './pending-chunk.js';
import { recordCall, recordCopy, recordView, type ViewKind } from './record.js';
import { type GetSymbolOptions, getSymbol } from './symbol.js';

function isThenable(x: unknown): boolean {
  return typeof (x as { then?: unknown } | null)?.then === 'function';
}

function asList<T>(x: T | readonly T[]): readonly T[] {
  return Array.isArray(x) ? (x as readonly T[]) : [x as T];
}

/** Options of `dc.context`. */
export interface DCContextOptions {
  /**
   * Refuse to compute deferred arrays while this scope is active (a read of a value is an
   * MXNetError naming this string, e.g. "hybridize()"): for tracers whose graph must not depend on
   * data values. Default: reads compute, as MXNet's.
   */
  readonly refuseReads?: string;
}

export class DeferredCompute {
  /** @internal */
  readonly runtime: Runtime;
  #active = false;
  /** Set by a scope that refuses value reads (Gluon's hybridize): who refuses, for the message. */
  #readsRefusedBy: string | undefined;
  #nodeCount = 0;
  #placeholderVar: Var | undefined;
  readonly #infos = new WeakMap<GraphNode, NodeInfo>();

  constructor(runtime: Runtime) {
    this.runtime = runtime;
  }

  // ---- the mode -------------------------------------------------------------------------------

  /** @internal The flag on the invoke path (a field read). */
  get active(): boolean {
    return this.#active;
  }

  /** True inside a deferred compute scope (MXNet `dc.is_deferred_compute()`). */
  isDeferredCompute(): boolean {
    return this.#active;
  }

  /** Switch deferred compute on or off; returns the previous state (MXNet `set_deferred_compute`). */
  setDeferredCompute(state: boolean): boolean {
    const prev = this.#active;
    this.#active = state;
    return prev;
  }

  /**
   * Run `body` with deferred compute set to `state` (default on), then restore the previous state
   * (MXNet `with dc.context(state)`). Scopes nest; `context(fn, false)` inside one runs eagerly.
   * The body must be synchronous: an async body is refused (its awaits would leave the flag on for
   * unrelated code).
   */
  context<R>(body: () => R, state = true, options: DCContextOptions = {}): R {
    const prev = this.setDeferredCompute(state);
    const prevRefused = this.#readsRefusedBy;
    if (options.refuseReads !== undefined) this.#readsRefusedBy = options.refuseReads;
    let result: R;
    try {
      result = body();
    } finally {
      this.#active = prev;
      this.#readsRefusedBy = prevRefused;
    }
    if (isThenable(result)) {
      throw new MXNetError('dc.context() takes a synchronous function; this one returned a promise', {
        op: 'dc.context',
        hint: 'trace synchronous code only: do the awaits before or after the scope',
      });
    }
    return result;
  }

  /** The scope as a disposable: `using _ = rt.dc.enter();` (deferred until the block ends). */
  enter(state = true): Disposable {
    const prev = this.setDeferredCompute(state);
    let done = false;
    return {
      [Symbol.dispose]: () => {
        if (!done) this.#active = prev;
        done = true;
      },
    };
  }

  // ---- variables, graphs ----------------------------------------------------------------------

  /**
   * Bind arrays to graph variables (MXNet `dc.set_variable`): inside a scope, ops on them record
   * the variable as their input, and `getSymbol` lists it. A variable is a name (a new variable
   * node) or a variable `GraphNode` (e.g. a Symbol's, with its `__shape__`... attributes). An
   * array already bound to another variable must be detached first (`x.detach()`).
   */
  setVariable(
    arrays: NDArray | readonly NDArray[],
    variables: string | GraphNode | readonly (string | GraphNode)[],
  ): void {
    const as = asList(arrays);
    const vs = asList<string | GraphNode>(variables);
    if (as.length !== vs.length) {
      throw new MXNetError(`setVariable: ${as.length} array(s) but ${vs.length} variable(s)`, {
        op: 'dc.setVariable',
        hint: 'pass one variable per array',
      });
    }
    const nodes = vs.map((v, i) => {
      if (typeof v === 'string') return GraphNode.variable(v);
      if (!v.isVariable) {
        throw new MXNetError(
          `setVariable expects variables as input. Instead got a node associated with an operator (${v.op?.name} ${v.name}) as input ${i}`,
          { op: 'dc.setVariable', hint: 'pass a variable node or a name' },
        );
      }
      return v;
    });
    as.forEach((a, i) => {
      a.checkLive('dc.setVariable');
      const e = a.dcEntry;
      if (e !== undefined && this.#infos.has(e.node) && e.node !== nodes[i]) {
        throw new MXNetError(
          `array ${i} is already associated with a different variable. You can call array.detach() to obtain a copy without the variable`,
          { op: 'dc.setVariable', shapes: [a.shape], hint: `it is bound to '${e.node.name}'` },
        );
      }
    });
    as.forEach((a, i) => {
      const node = nodes[i] as GraphNode;
      a.dcEntry = { node, index: 0 };
      this.#infos.set(node, { kind: 'variable', array: a });
    });
  }

  /**
   * The recorded computation of `outputs` as a graph (MXNet `dc.get_symbol`): a copy of the nodes,
   * variables named as bound, op nodes `node_N` with MXNet's string attributes — what @mx/graph's
   * `saveJSON` writes and @mx/symbol wraps. With `inputs`, every variable the outputs read must be
   * one of theirs (an MXNetError names the node that reads another one), and an input no output
   * uses is reported through `warn` (default console.warn), as Gluon warns.
   */
  getSymbol(outputs: NDArray | readonly NDArray[], options: GetSymbolOptions = {}): Graph {
    return getSymbol((n) => this.#infos.get(n), asList(outputs), options);
  }

  /**
   * Forget the recorded history reachable from `arrays` (MXNet `dc.clear`): their variables are
   * unbound, computed arrays become plain ones (no history), and a deferred array left in that
   * history can no longer be computed (reading it is an MXNetError).
   */
  clear(arrays: NDArray | readonly NDArray[]): void {
    const stack: GraphNode[] = [];
    for (const a of asList(arrays)) if (a.dcEntry !== undefined) stack.push(a.dcEntry.node);
    const seen = new Set<GraphNode>();
    while (stack.length > 0) {
      const node = stack.pop() as GraphNode;
      if (seen.has(node)) continue;
      seen.add(node);
      const info = this.#infos.get(node);
      if (info?.kind === 'variable') {
        if (info.array.dcEntry?.node === node) info.array.dcEntry = undefined;
      }
      this.#infos.delete(node);
      for (const e of node.inputs) stack.push(e.node);
    }
  }

  // ---- deferred arrays ------------------------------------------------------------------------

  /** True while `a` is a deferred result not computed yet (no storage). */
  isDeferred(a: NDArray): boolean {
    return a.isDeferred;
  }

  /**
   * Compute deferred arrays now (what any read does implicitly; MXNet `DCInfo::Compute`). Arrays
   * that are not deferred are left alone. The kernels are pushed; reads still wait as usual.
   */
  compute(arrays: NDArray | readonly NDArray[]): void {
    for (const a of asList(arrays)) {
      if (!a.isDeferred) continue;
      a.checkLive('dc.compute');
      const refusedBy = this.#readsRefusedBy;
      if (this.#active && refusedBy !== undefined) {
        throw new MXNetError(
          `${refusedBy}: the traced forward reads the value of a deferred array (${a.dcEntry?.node.name ?? 'an output'}, shape ${shapeToString(a.shape)}). A cached graph cannot depend on data values: a branch or loop on them would be frozen at the values of the first call.`,
          {
            op: 'dc.compute',
            shapes: [a.shape],
            hint: 'compute the choice with operators (nd.where, masks), move the read out of forward, or call hybridize(false)',
          },
        );
      }
      const prev = this.setDeferredCompute(false);
      try {
        computeDeferred(this.runtime, (n) => this.#infos.get(n), a);
      } finally {
        this.#active = prev;
      }
    }
  }

  /**
   * @internal Compute `a` for a dynamic-shape op being recorded (record.ts): not a value read by
   * the traced code, so a scope that refuses reads allows it (the op runs again on every call).
   */
  computeForRecording(a: NDArray): void {
    if (!a.isDeferred) return;
    const prev = this.setDeferredCompute(false);
    try {
      computeDeferred(this.runtime, (n) => this.#infos.get(n), a);
    } finally {
      this.#active = prev;
    }
  }

  // ---- hooks (runtime, NDArray) ---------------------------------------------------------------

  /** @internal `rt.invoke` while active: record the call. */
  record(
    op: Op,
    inputs: readonly NDArray[],
    params: OpParams | undefined,
    options: InvokeOptions | undefined,
  ): NDArray[] {
    return recordCall(this, op, inputs, params, options);
  }

  /** @internal `rt.copy` while active. */
  copy(src: NDArray, target: Context | NDArray): NDArray {
    return recordCopy(this, src, target);
  }

  /** @internal `rt.recast` of a deferred array: another deferred array for the same output. */
  alias(a: NDArray, cls: ArrayClass): NDArray {
    const e = a.dcEntry as DCEntry;
    const info = this.#infos.get(e.node);
    if (info?.kind !== 'op')
      throw new MXNetError('a deferred array without a recorded node', { op: 'recast' });
    const b = this.newDeferred(a.ctx, a.shape, a.dtype, e.node, e.index, cls);
    b.aliasOf = a.aliasOf ?? a;
    b.agEntry = a.agEntry;
    if (info.aliases === undefined) info.aliases = [];
    info.aliases.push(b);
    return b;
  }

  /** @internal A view method while active. */
  view(base: NDArray, kind: ViewKind, shape: Shape, byteDelta: number, index?: readonly number[]): NDArray {
    return recordView(this, base, kind, shape, byteDelta, index);
  }

  /** @internal A write into `target` (`set`) while active: MXNet's in-place error. */
  checkWrite(what: string, target: NDArray): void {
    if (this.#active) throw inplaceError(what, target);
  }

  // ---- for record.ts --------------------------------------------------------------------------

  /** @internal */
  infoOf(node: GraphNode): NodeInfo | undefined {
    return this.#infos.get(node);
  }

  /** @internal */
  addInfo(node: GraphNode, info: NodeInfo): void {
    this.#infos.set(node, info);
  }

  /** @internal MXNet's `node_N` names. */
  nextNodeName(): string {
    return `node_${this.#nodeCount++}`;
  }

  /** @internal A deferred array standing for output `index` of `node`. */
  newDeferred(
    ctx: Context,
    shape: Shape,
    dtype: DTypeName,
    node: GraphNode,
    index: number,
    cls?: ArrayClass,
  ): NDArray {
    this.#placeholderVar ??= this.runtime.engine.newVariable('deferred');
    const chunk = new PendingChunk(this.#placeholderVar, ctx, this.runtime.backendFor(ctx, node.op?.name));
    const a = makeArray(cls ?? NDArray, this.runtime, chunk, shape, dtype, 0);
    a.dcEntry = { node, index } satisfies DCEntry;
    return a;
  }
}
