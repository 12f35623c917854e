/**
 * Tracing a HybridBlock's forward into a CachedOp (MXNet 2.0 `_get_graph` + `_build_cache`).
 *
 * Parameters are initialized first by one eager forward in predict mode with autograd paused and
 * every child running imperatively: it finishes each child's deferred initialization outside the
 * trace (allocation and initializer ops must not become lazy) and, in predict mode, changes no
 * running statistics and draws no dropout masks, so the only cost is one extra forward on the
 * first call. Then the forward runs under
 * deferred compute with the inputs named `data` (`data0`, `data1`… for several) and the parameters
 * by structural name, so the traced symbol is already what `export` writes.
 */
import { MXNetError } from '@mx/base';
import type { NDArray, Runtime } from '@mx/ndarray';
import { CachedOp, Symbol as MxSymbol, SymbolApi } from '@mx/symbol';
import type { Block } from './block.js';
import type { Parameter } from './parameter.js';

/** Options of `HybridBlock.hybridize` (the CachedOp's flags). */
export interface HybridizeOptions {
  /** Allocate the graph's memory once and reuse it across calls (MXNet `static_alloc`). */
  readonly staticAlloc?: boolean;
  /** Also fix input shapes (MXNet `static_shape`; needs staticAlloc). */
  readonly staticShape?: boolean;
  /** Graphs with at most this many nodes are run inline by autograd (MXNet `inline_limit`). */
  readonly inlineLimit?: number;
  readonly forwardBulkSize?: number;
  readonly backwardBulkSize?: number;
}

/** A traced forward: its CachedOp and how to feed it. */
export interface Trace {
  readonly numInputs: number;
  readonly op: CachedOp;
  /** Runs the CachedOp on new inputs; one output is returned bare, several as an array. */
  run(inputs: readonly NDArray[]): NDArray | NDArray[];
  /** The symbol and the parameter arrays by exported name. */
  exportParams(): {
    symbol: MxSymbol;
    argParams: Record<string, NDArray>;
    auxParams: Record<string, NDArray>;
  };
}

const dataNames = (n: number) => (n === 1 ? ['data'] : Array.from({ length: n }, (_, i) => `data${i}`));

function flatOutputs(block: Block, out: unknown): { arrays: NDArray[]; single: boolean } {
  if (Array.isArray(out)) return { arrays: out as NDArray[], single: false };
  if (out !== null && typeof out === 'object' && 'shape' in out)
    return { arrays: [out as NDArray], single: true };
  throw new MXNetError(
    `hybridized ${block.blockName}.forward must return an NDArray or an array of NDArrays`,
  );
}

function disposeAll(out: unknown, keep: readonly NDArray[]): void {
  const arrays = Array.isArray(out) ? (out as NDArray[]) : [out as NDArray];
  for (const a of arrays) if (!keep.includes(a)) a.dispose();
}

export function traceForward(
  rt: Runtime,
  block: Block,
  forward: (...xs: unknown[]) => unknown,
  warmUp: (...xs: unknown[]) => unknown,
  inputs: readonly NDArray[],
  options: HybridizeOptions,
): Trace {
  // 1. Finish deferred initialization eagerly, without side effects.
  rt.autograd.pause(() => disposeAll(warmUp(...inputs), inputs));

  // 2. Trace under deferred compute.
  const params = block.collectParams();
  const byArray = new Map<NDArray, string>();
  for (const [name, p] of params) if (!byArray.has(p.data())) byArray.set(p.data(), name);
  const names = dataNames(inputs.length);
  let traced: NDArray[] = [];
  let single = true;
  let graph: ReturnType<Runtime['dc']['getSymbol']>;
  const where = `hybridize() of ${block.blockName}`;
  try {
    rt.autograd.pause(() => {
      rt.dc.context(
        () => {
          rt.dc.setVariable([...inputs], names);
          rt.dc.setVariable([...byArray.keys()], [...byArray.values()]);
          const out = flatOutputs(block, forward(...inputs));
          traced = out.arrays;
          single = out.single;
        },
        true,
        { refuseReads: where },
      );
    });
    graph = rt.dc.getSymbol(traced);
  } finally {
    // The graph is a copy: unbind the inputs and parameters (another block, or the next attempt,
    // may trace them) and drop the lazy outputs — also when the trace failed.
    rt.dc.clear([...traced, ...inputs, ...byArray.keys()]);
    for (const a of traced) if (!inputs.includes(a)) a.dispose();
  }
  const api = new SymbolApi(rt);
  const symbol = new MxSymbol(api, graph.outputs);

  // 3. The CachedOp over the symbol's inputs in its order.
  const order = symbol.listInputs();
  const paramByName = new Map<string, Parameter>([...params].filter(([n]) => order.includes(n)));
  const dataIndices: number[] = [];
  const paramIndices: number[] = [];
  for (const [i, n] of order.entries()) (names.includes(n) ? dataIndices : paramIndices).push(i);
  for (const n of order) {
    if (!names.includes(n) && !paramByName.has(n)) {
      throw new MXNetError(`Unknown input to HybridBlock: ${n}`, {
        hint: 'internal: traced graph names an input that is neither data nor a parameter',
      });
    }
  }
  const unused = names.filter((n) => !order.includes(n));
  if (unused.length > 0) {
    console.warn(
      `The ${unused.join(', ')} input to HybridBlock is not used by any computation. Is this intended?`,
    );
  }
  const op = new CachedOp(rt, symbol, { ...options, dataIndices, paramIndices, name: block.blockName });
  return {
    numInputs: inputs.length,
    op,
    run(xs) {
      const args = order.map((n) => {
        const k = names.indexOf(n);
        return k >= 0 ? (xs[k] as NDArray) : (paramByName.get(n) as Parameter).data();
      });
      const outs = op.call(...args);
      return single ? (outs[0] as NDArray) : outs;
    },
    exportParams() {
      const argParams: Record<string, NDArray> = {};
      const auxParams: Record<string, NDArray> = {};
      const aux = new Set(symbol.listAuxiliaryStates());
      for (const [n, p] of paramByName) (aux.has(n) ? auxParams : argParams)[n] = p.data();
      return { symbol, argParams, auxParams };
    },
  };
}
