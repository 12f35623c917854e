/**
 * InferStorageType (MXNet `InferStorageType` in `src/executor/infer_graph_attr_pass.cc`): every
 * entry's storage type, swept forward and backward over the indexed graph by the same engine as
 * shapes and dtypes, plus the dispatch mode of each node (MXNet's `dispatch_mode` attribute).
 *
 * Seeds: the caller's values by variable node id (the bound arrays' stypes), else a variable's
 * `__storage_type__` attribute (MXNet's flag: 0 default, 1 row_sparse, 2 csr, -1 undefined).
 *
 * Dispatch is split differently from MXNet on purpose. MXNet's per-op `FInferStorageType` picks the
 * dispatch mode itself, because an op's sparse kernels are registered with the op. Here an op
 * definition (@mx/ops) only says which storage types come out, and whether a backend kernel serves
 * them (`Kernel.computeEx` + `computeExStorage`) is the backend's business — this package must not
 * know backends. So the caller may pass `computeEx`, the question the imperative dispatch
 * (@mx/ndarray `invoke-sparse.ts`) asks, and a graph then dispatches each node exactly as an
 * imperative call with the same storage types would. Without it, ops with their own storage
 * inference are assumed served.
 */
import { MXNetError } from '@mx/base';
import type { StorageType } from '@mx/ops';
import type { IndexedGraph } from '../indexed.js';
import type { GraphNode } from '../node.js';
import { type AttrKind, type InferInputs, type InferResult, runInference } from './infer-engine.js';
import { attrError } from './infer-errors.js';

/**
 * How a node runs, as decided by storage type inference (MXNet `DispatchMode`): its dense kernel
 * (`fcompute`: every input and output dense), its storage-aware kernel (`fcomputeEx`), the dense
 * kernel on densified inputs with results cast to the inferred storage (`fallback`), or nothing to
 * run (`variable`).
 */
export type DispatchMode = 'fcompute' | 'fcomputeEx' | 'fallback' | 'variable';

/** Options of {@link inferStorageType}. */
export interface InferStorageOptions {
  /**
   * Whether a storage-aware kernel serves `node` with these storage types (the backend's answer;
   * @mx/symbol asks the runtime's kernel registry, as imperative calls do). Asked only for nodes
   * with a non-dense input or output. Default: served when the op has its own storage inference.
   */
  readonly computeEx?: (
    node: GraphNode,
    inTypes: readonly StorageType[],
    outTypes: readonly StorageType[],
  ) => boolean;
}

/** Storage type inference results: per entry, plus the dispatch mode per node id. */
export interface StorageInferResult extends InferResult<StorageType> {
  /** Per node id; undefined where some input or output storage type stayed unknown. */
  readonly dispatchModes: readonly (DispatchMode | undefined)[];
}

/** MXNet's `NDArrayStorageType` flags (index = flag). */
const STORAGE_FLAGS: readonly StorageType[] = ['default', 'row_sparse', 'csr'];

const STORAGE_KIND: AttrKind<StorageType> = {
  attribute: 'storage type',
  attrKey: '__storage_type__',
  parseAttr(text, node) {
    const t = text.trim();
    if (t === '-1') return undefined;
    const byFlag = /^\d+$/.test(t) ? STORAGE_FLAGS[Number(t)] : undefined;
    const v = byFlag ?? (STORAGE_FLAGS.includes(t as StorageType) ? (t as StorageType) : undefined);
    if (v === undefined) {
      throw attrError(
        node,
        '__storage_type__',
        text,
        'not a storage type',
        'use 0 (default), 1 (row_sparse), 2 (csr) or -1 (undefined)',
      );
    }
    return v;
  },
  validate(v, what) {
    if (!STORAGE_FLAGS.includes(v)) {
      throw new MXNetError(`${what} is not a storage type: ${String(v)}`, {
        op: 'infer storage type',
        hint: `use one of ${STORAGE_FLAGS.join(', ')}`,
      });
    }
  },
  isKnown: (v): v is StorageType => v !== undefined,
  merge: (a, b) => (a === b ? a : null),
  equal: (a, b) => a === b,
  copy: (v) => v,
  format: (v) => v ?? 'unknown',
  inputContext: () => ({}),
  infer(node, ins, outs) {
    const op = node.op as NonNullable<GraphNode['op']>;
    if (op.def.inferStorageType === undefined) {
      // MXNet's DefaultStorageType: unknown slots become dense; non-dense ones stay (fallback).
      for (let i = 0; i < ins.length; i++) ins[i] ??= 'default';
      for (let i = 0; i < outs.length; i++) outs[i] ??= 'default';
      return true;
    }
    // Unknown inputs are offered as dense (a variable nobody gave a storage type is dense); unknown
    // outputs stay undefined, as imperative calls pass them (MXNet's -1): a rule such as dot's
    // backward fills only slots that are unset or already hold what it infers.
    const i2 = ins.map((v) => v ?? 'default');
    const o2 = [...outs] as StorageType[];
    const ok = op.inferStorageType(node.parsed, i2, o2);
    i2.forEach((v, i) => {
      ins[i] = v;
    });
    o2.forEach((v, i) => {
      outs[i] = v;
    });
    return ok;
  },
  backwardIdentity: false,
};

/**
 * Infer every entry's storage type and each node's dispatch mode (MXNet `InferStorageType`).
 * Variables read `__storage_type__` unless `known.nodes` gives them a value. A node whose inputs
 * and outputs are all dense dispatches `fcompute`; otherwise `fcomputeEx` when a storage-aware
 * kernel serves it (`options.computeEx`), else `fallback`. An op whose storage inference throws
 * (e.g. `cast_storage` from csr to row_sparse) is a {@link GraphInferenceError} naming the node;
 * nothing on the graph changes.
 */
export function inferStorageType(
  idx: IndexedGraph,
  known: InferInputs<StorageType> = {},
  options: InferStorageOptions = {},
): StorageInferResult {
  const res = runInference(idx, known, STORAGE_KIND);
  const served = options.computeEx;
  const dispatchModes = idx.nodes.map((inode, nid): DispatchMode | undefined => {
    const node = inode.node;
    const op = node.op;
    if (op === null) return 'variable';
    const ins = inode.inputs.map((e) => res.values[idx.entryId(e)]);
    const first = idx.rowPtr[nid] as number;
    const outs = res.values.slice(first, idx.rowPtr[nid + 1] as number);
    if (ins.some((t) => t === undefined) || outs.some((t) => t === undefined)) return undefined;
    const dense = (t: StorageType | undefined) => t === 'default';
    if (ins.every(dense) && outs.every(dense)) return 'fcompute';
    const ex =
      served === undefined
        ? op.def.inferStorageType !== undefined
        : served(node, ins as StorageType[], outs as StorageType[]);
    return ex ? 'fcomputeEx' : 'fallback';
  });
  return { ...res, dispatchModes };
}
