/**
 * The graph-layer entry points the benchmarks drive, in one place: binding an Executor with fusion
 * on or off, what an executor says about its compiled graph, and the CachedOp training step
 * (Gluon's hybridized path). Each workload file then only says what it measures.
 */
import type { NDArray, Runtime } from '@mx/ndarray';
import { CachedOp, type Executor, type Symbol as MxSymbol } from '@mx/symbol';
import type { NetInit } from './nets.js';

/** Bind `symbol` to the caller's arrays for inference (no copies, no gradients), fusion on or off. */
export function bindInferenceTo(
  symbol: MxSymbol,
  args: Readonly<Record<string, NDArray>>,
  fusion: boolean,
): Executor {
  return symbol.bind({ args, fusion });
}

/** What the executor reports about its compiled graph (nodes after fusion, engine ops per pass). */
export function graphStats(ex: Executor): Record<string, number> {
  const count = (segs: string[][]) => segs.reduce((s, seg) => s + seg.length, 0);
  const fwd = ex.segments('forward');
  const out: Record<string, number> = {
    graphNodes: ex.numNodes,
    fusedNodes: ex.fusedNodes,
    forwardOpNodes: count(fwd),
    forwardEngineOps: fwd.length,
  };
  if (ex.hasBackward) {
    const bwd = ex.segments('backward');
    out.backwardOpNodes = count(bwd);
    out.backwardEngineOps = bwd.length;
  }
  return out;
}

/** One-line summary of {@link graphStats}. */
export function statsText(s: Record<string, number>): string {
  const parts = [`${s.forwardOpNodes} forward op nodes`];
  if (s.backwardOpNodes !== undefined) parts.push(`${s.backwardOpNodes} backward`);
  parts.push(`${s.fusedNodes} fused`, `${s.forwardEngineOps} engine op(s) forward`);
  return parts.join(', ');
}

/**
 * A CachedOp training step — the op called under autograd.record on (data, parameters with
 * attached gradients, label), loss.backward(), sgd_update into each weight, loss read back.
 * `staticAlloc` is MXNet's `static_alloc` + `static_shape` (memory and runners kept between calls);
 * `bulkSize` its `forward_bulk_size`.
 */
export function cachedOpStep(
  rt: Runtime,
  symbol: MxSymbol,
  init: NetInit,
  lr: number,
  options: { readonly staticAlloc: boolean; readonly bulkSize?: number },
): { run: () => number; dispose: () => void } {
  const { nd, autograd } = rt;
  const op = new CachedOp(rt, symbol, {
    ...(options.staticAlloc ? { staticAlloc: true, staticShape: true } : {}),
    ...(options.bulkSize === undefined ? {} : { forwardBulkSize: options.bulkSize }),
  });
  const params: Record<string, NDArray> = {};
  for (const [k, v] of Object.entries(init.params)) {
    const w = v.copy();
    w.attachGrad();
    params[k] = w;
  }
  const x = init.data.copy();
  const y = init.label.copy();
  const inputs = op.inputNames.map((n) => {
    const a = n === 'data' ? x : n === 'label' ? y : params[n];
    if (a === undefined) throw new Error(`CachedOp input ${n} is not a parameter of the network`);
    return a;
  });
  const weights = Object.values(params);
  return {
    run: () =>
      nd.scopeSync(() => {
        const loss = autograd.record(() => op.call(...inputs)[0] as NDArray);
        loss.backward();
        for (const w of weights) nd.sgd_update(w, w.grad as NDArray, { lr, out: w });
        return (loss.dataSync() as Float32Array)[0] as number;
      }),
    dispose: () => {
      op.dispose();
      for (const a of [...weights, x, y]) a.dispose();
    },
  };
}
