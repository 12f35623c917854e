/**
 * Gluon's `HybridBlock` (MXNet 2.0): a block whose forward can be traced once into a graph and then
 * run as one CachedOp.
 *
 * The flow is 2.0's `HybridBlock.__call__`: on the first call each block runs its `inferShape` on
 * the input and finishes the deferred initialization of its own parameters; when hybridized (and
 * not already inside a parent's trace) the first call per input structure traces `forward` with
 * deferred compute — inputs named `data` / `data0…`, parameters by their structural names, so the
 * graph exports without renaming — and builds a CachedOp from it; every call then runs the CachedOp
 * on the real inputs and parameter arrays. Children of a hybridized block just run their forward
 * inside the parent's trace.
 */
import { MXNetError, shapeToString } from '@mx/base';
import { type ArrayClass, NDArray, type Runtime } from '@mx/ndarray';
import type { CachedOp, Symbol as MxSymbol } from '@mx/symbol';
import { Block, firstArray } from './block.js';
import { type HybridizeOptions, type Trace, traceForward } from './trace.js';

export type { HybridizeOptions } from './trace.js';

/** A block that can be hybridized (MXNet `gluon.HybridBlock`). */
export abstract class HybridBlock extends Block {
  #active = false;
  #options: HybridizeOptions = {};
  #inferred = false;
  #suspended = 0;
  #trace: Trace | undefined;

  /** Whether this block runs as a cached graph. */
  get isHybridized(): boolean {
    return this.#active;
  }

  /**
   * Turns graph caching on or off for this block and every hybridizable child (MXNet `hybridize`):
   * `hybridize()`, `hybridize({ staticAlloc: true })` or `hybridize(false)`. A change drops the
   * cached graph; the next call traces again.
   */
  hybridize(active: boolean | HybridizeOptions = true, options: HybridizeOptions = {}): this {
    if (typeof active !== 'boolean') return this.hybridize(true, active);
    this.#active = active;
    this.#options = options;
    this.clearCache();
    for (const c of this.children.values()) if (c instanceof HybridBlock) c.hybridize(active, options);
    return this;
  }

  /** Drops the traced graphs and CachedOps of this block and its hybridizable children. */
  clearCache(): void {
    this.#trace?.op.dispose();
    this.#trace = undefined;
    for (const c of this.children.values()) if (c instanceof HybridBlock) c.clearCache();
  }

  /** @internal Runs `fn` with every HybridBlock of this tree running imperatively. */
  withCachingSuspended<R>(fn: () => R): R {
    const all: HybridBlock[] = [];
    this.apply((b) => {
      if (b instanceof HybridBlock) all.push(b);
    });
    for (const b of all) b.#suspended++;
    try {
      return fn();
    } finally {
      for (const b of all) b.#suspended--;
    }
  }

  /**
   * Sets the unknown dimensions of this block's own parameters from the first input. The default is
   * 2.0's: an error naming the parameters whose shape is still unknown.
   */
  inferShape(..._args: NDArray[]): void {
    const unknown = [...this.params].filter(([, p]) => p.shape === undefined || p.shape.some((d) => d < 0));
    if (unknown.length > 0) {
      const list = unknown.map(([k, p]) => `${k} (${shapeToString(p.shape ?? [])})`).join(', ');
      throw new MXNetError(
        `${this.blockName} has parameters with unknown shape. You need to either specify the shape in the constructor or implement ${this.blockName}.inferShape to set the parameter shapes based on the first input. Parameters with unknown shapes are ${list}`,
      );
    }
  }

  protected override callForward(fn: (...args: never[]) => unknown, args: unknown[]): unknown {
    const x = firstArray(args);
    if (x === undefined) {
      throw new MXNetError(`In HybridBlock ${this.blockName}, there must be one NDArray in the input.`, {
        hint: 'pass the data as NDArrays',
      });
    }
    if (!this.#inferred) {
      this.inferShape(...(args.filter((a) => a instanceof NDArray) as NDArray[]));
      for (const p of this.params.values()) p.finishDeferredInit(x.runtime);
      this.#inferred = true;
    }
    const rt = x.runtime;
    if (!this.#active || this.#suspended > 0 || rt.dc.isDeferredCompute()) return super.callForward(fn, args);
    return this.#callCached(rt, fn, args);
  }

  #callCached(rt: Runtime, fn: (...args: never[]) => unknown, args: unknown[]): unknown {
    const inputs = args as NDArray[];
    if (!inputs.every((a) => a instanceof NDArray)) {
      throw new MXNetError(`hybridized ${this.blockName}: every forward argument must be an NDArray`, {
        hint: 'pass other settings to the constructor, or call hybridize(false)',
      });
    }
    if (this.#trace !== undefined && this.#trace.numInputs !== inputs.length) {
      throw new MXNetError(
        `The argument structure of HybridBlock does not match the cached version. Stored format = ${this.#trace.numInputs} inputs, input format = ${inputs.length} inputs`,
      );
    }
    if (this.#trace === undefined) {
      // Parameters of children are initialized by running forward once eagerly inside the trace.
      const forward = (...xs: unknown[]) => super.callForward(fn, xs);
      const warmUp = (...xs: unknown[]) => this.withCachingSuspended(() => forward(...xs));
      this.#trace = traceForward(rt, this, forward, warmUp, inputs, this.#options);
    }
    const out = this.#trace.run(inputs);
    const cls = (inputs[0] as NDArray).outputClass;
    return cls === undefined ? out : recastAll(rt, out, cls);
  }

  /**
   * The traced graph and its parameter arrays by exported name (MXNet `export(None)`): needs one
   * hybridized forward first.
   */
  exportSymbol(): {
    symbol: MxSymbol;
    argParams: Record<string, NDArray>;
    auxParams: Record<string, NDArray>;
  } {
    const t = this.#trace;
    if (t === undefined) {
      throw new MXNetError(
        'Please first call block.hybridize() and then run forward with this block at least once before calling export.',
      );
    }
    return t.exportParams();
  }

  /**
   * Writes `path-symbol.json` and `path-NNNN.params` with `arg:`/`aux:` keys (MXNet `export`),
   * which MXNet's `SymbolBlock.imports` and `mx.model.load_checkpoint` read.
   */
  async export(path: string, epoch = 0): Promise<{ symbolFile: string; paramsFile: string }> {
    const { symbol, argParams, auxParams } = this.exportSymbol();
    const symbolFile = `${path}-symbol.json`;
    const paramsFile = `${path}-${String(epoch).padStart(4, '0')}.params`;
    const first = Object.values(argParams)[0] ?? Object.values(auxParams)[0];
    if (first === undefined)
      throw new MXNetError(`${this.blockName} has no parameters to export to ${paramsFile}`);
    const rt = first.runtime;
    await symbol.save(symbolFile);
    const named: Record<string, NDArray> = {};
    for (const [k, v] of Object.entries(argParams)) named[`arg:${k}`] = v;
    for (const [k, v] of Object.entries(auxParams)) named[`aux:${k}`] = v;
    await rt.nd.save(paramsFile, named);
    return { symbolFile, paramsFile };
  }

  /** @internal The CachedOp of the current trace (benchmarks, tests). */
  get cachedOp(): CachedOp | undefined {
    return this.#trace?.op;
  }
}

/** Fresh outputs of a cached graph as arrays of the input's class (np in, np out), no copies. */
function recastAll(rt: Runtime, out: unknown, cls: ArrayClass): unknown {
  if (Array.isArray(out)) return out.map((o) => recastAll(rt, o, cls));
  if (!(out instanceof NDArray) || out.constructor === cls) return out;
  const r = rt.recast(out, cls);
  out.dispose();
  return r;
}
