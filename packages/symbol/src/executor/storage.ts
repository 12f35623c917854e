/**
 * Storage types of a bound graph (MXNet GraphExecutor runs InferStorageType on the full graph,
 * seeded with the bound arrays' storage types, before it plans memory): which entries are sparse
 * and which nodes run through the imperative storage dispatch instead of the planned dense path.
 *
 * The common case must cost nothing: a graph whose variables are all dense and none of whose ops
 * can make a sparse output from dense inputs (`Op.sparseFromDense`, e.g. `cast_storage` to csr,
 * Embedding's backward with `sparse_grad`) is dense throughout, which a scan of its nodes tells
 * without running inference. Only other graphs are inferred; their dispatch modes come from
 * @mx/graph's pass with the runtime's kernels answering `computeEx`, the same question the
 * imperative dispatch (@mx/ndarray `invoke-sparse.ts`) asks, so a node runs in a graph as the
 * same call would run on its own.
 */
import { type Context, MXNetError } from '@mx/base';
import { type DispatchMode, type IndexedGraph, inferStorageType } from '@mx/graph';
import type { Runtime } from '@mx/ndarray';
import type { StorageType } from '@mx/ops';

/** What storage inference decided for a graph with sparse entries. */
export interface GraphStorage {
  /** Storage type of every entry (entry id). */
  readonly stypes: readonly StorageType[];
  /** Dispatch mode of every node (node id). */
  readonly dispatch: readonly DispatchMode[];
  /**
   * Per node id: 1 when the node runs through the imperative storage dispatch (it dispatches
   * fcomputeEx or fallback, or an output is bound to an array of another storage type).
   */
  readonly imperative: Uint8Array;
}

/**
 * True when the graph may hold a sparse entry: a variable bound (or declared by
 * `__storage_type__`) sparse, or an op that can make sparse outputs from dense inputs.
 */
export function mayBeSparse(idx: IndexedGraph, varStypes: ReadonlyMap<number, StorageType>): boolean {
  for (const t of varStypes.values()) if (t !== 'default') return true;
  for (let nid = 0; nid < idx.nodes.length; nid++) {
    const node = (idx.nodes[nid] as IndexedGraph['nodes'][number]).node;
    if (node.op === null) {
      if (varStypes.has(nid)) continue;
      const a = node.attrs.__storage_type__;
      if (a !== undefined && a.trim() !== '0' && a.trim() !== '-1' && a.trim() !== 'default') return true;
    } else if (node.op.sparseFromDense(node.parsed as never)) return true;
  }
  return false;
}

/**
 * Infer the storage types of `idx` (variables from `varStypes`, else their attribute) and decide
 * each node's dispatch on `ctx`'s backend. `boundStypes` gives the storage type of arrays bound to
 * op outputs (gradients): a node writing into an array of another storage type runs imperatively
 * and its result is cast (MXNet's output storage fallback). Returns undefined when every entry is
 * dense and nothing is bound sparse: the graph runs on the dense path.
 */
export function inferGraphStorage(
  rt: Runtime,
  idx: IndexedGraph,
  varStypes: ReadonlyMap<number, StorageType>,
  boundStypes: ReadonlyMap<number, StorageType>,
  ctx: Context,
  op: string,
): GraphStorage | undefined {
  const res = inferStorageType(
    idx,
    { nodes: varStypes },
    {
      computeEx: (node, ins, outs) => {
        const o = node.op as NonNullable<typeof node.op>;
        const kernel = rt.registry.kernel(o, rt.backendFor(ctx, o.name).name);
        return kernel?.computeEx !== undefined && (kernel.computeExStorage?.(node.parsed, ins, outs) ?? true);
      },
    },
  );
  const stypes = res.values.map((t, eid) => {
    if (t !== undefined) return t;
    // A variable nobody reads has no storage type to infer: it is what it is bound as, else dense.
    let nid = 0;
    while ((idx.rowPtr[nid + 1] as number) <= eid) nid++;
    const node = idx.nodes[nid]?.node;
    if (node?.op === null) return varStypes.get(nid) ?? 'default';
    throw new MXNetError(
      `cannot infer the storage type of output ${eid - (idx.rowPtr[nid] as number)} of node ${node?.name} (${node?.op?.name})`,
      { op, hint: 'bind arrays of the storage types the graph expects (or declare them with sym.var stype)' },
    );
  });
  let sparse = false;
  for (const t of stypes) if (t !== 'default') sparse = true;
  for (const [eid, t] of boundStypes) if (t !== stypes[eid]) sparse = true;
  if (!sparse) return undefined;
  const imperative = new Uint8Array(idx.nodes.length);
  const dispatch = res.dispatchModes.map((m, nid) => {
    const inode = idx.nodes[nid] as IndexedGraph['nodes'][number];
    const mode = m ?? 'fallback';
    if (inode.node.op === null) return mode;
    let bound = false;
    for (let eid = idx.rowPtr[nid] as number; eid < (idx.rowPtr[nid + 1] as number); eid++) {
      const b = boundStypes.get(eid);
      if (b !== undefined && b !== stypes[eid]) bound = true;
    }
    if (mode !== 'fcompute' || bound) imperative[nid] = 1;
    if (mode === 'fallback') checkFallback(rt, inode, idx, stypes, ctx, op);
    return mode;
  });
  return { stypes, dispatch, imperative };
}

/** A node falling back needs a dense kernel: refuse at bind (naming it) rather than at run time. */
function checkFallback(
  rt: Runtime,
  inode: IndexedGraph['nodes'][number],
  idx: IndexedGraph,
  stypes: readonly StorageType[],
  ctx: Context,
  op: string,
): void {
  const o = inode.node.op as NonNullable<typeof inode.node.op>;
  const backend = rt.backendFor(ctx, o.name);
  if (rt.registry.kernel(o, backend.name)?.compute !== undefined) return;
  const ins = inode.inputs.map((e) => stypes[idx.entryId(e)]);
  throw new MXNetError(
    `node ${inode.node.name} (${o.name}): no sparse kernel on ${backend.name} for storage types (${ins.join(', ')}), and no dense kernel to fall back to`,
    {
      op,
      params: inode.node.attrs,
      device: ctx.toString(),
      hint: `backends with a kernel: ${rt.registry.backendsFor(o).join(', ') || 'none'}`,
    },
  );
}
