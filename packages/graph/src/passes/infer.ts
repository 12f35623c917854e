/**
 * InferShape / InferType / InferStorageType (MXNet `src/executor/infer_graph_attr_pass.cc`): the
 * public entry points and what each attribute means. The sweeps live in infer-engine.ts; this file
 * holds the three {@link AttrKind}s: how a value is seeded from a variable's hidden attribute
 * (`__shape__`, `__dtype__`, `__storage_type__`), when it counts as known, how two values merge,
 * and which op function infers it.
 *
 * Shapes use NumPy semantics (-1 = unknown dim, `undefined` = unknown shape). `__shape__` text is
 * MXNet 1.x ("legacy") unless `npShape` says otherwise: a 0 dim means unknown and `()` an unknown
 * shape, as MXNet reads files saved without `is_np_shape`.
 */
import {
  checkShape,
  type DTypeName,
  dtype,
  dtypeFromFlag,
  fromLegacyShape,
  isMXNetError,
  isShapeKnown,
  MXNetError,
  parseShape,
  type Shape,
  shapesEqual,
  shapeToString,
} from '@mx/base';
import type { StorageType } from '@mx/ops';
import type { IndexedGraph } from '../indexed.js';
import type { GraphNode } from '../node.js';
import { type AttrKind, type InferInputs, type InferResult, runInference } from './infer-engine.js';

export type { InferInputs, InferResult } from './infer-engine.js';
export { GraphInferenceError, type InferAttribute, type InferConflict } from './infer-errors.js';

/** Options of {@link inferShape}. */
export interface InferShapeOptions {
  /**
   * Read `__shape__` attributes with NumPy semantics (the graph is np-shape: `()` is a scalar,
   * 0 a zero-size dim, -1 unknown). Default false: legacy text, 0 = unknown dim, `()` = unknown.
   */
  readonly npShape?: boolean;
}

/**
 * How a node runs, as decided by storage type inference (MXNet `DispatchMode`): its dense kernel
 * (`fcompute`), its storage-aware kernel (`fcomputeEx`), the dense kernel on densified inputs
 * (`fallback`), or nothing to run (`variable`).
 */
export type DispatchMode = 'fcompute' | 'fcomputeEx' | 'fallback' | 'variable';

/** Storage type inference results: per entry, plus the dispatch mode per node id. */
export interface StorageInferResult extends InferResult<StorageType> {
  readonly dispatchModes: readonly (DispatchMode | undefined)[];
}

/**
 * Merge two partially known shapes dim by dim; null when they contradict. (@mx/ops has the same
 * helper in its infer.ts but does not export it.)
 */
function mergeShape(a: Shape, b: Shape): Shape | null {
  if (a.length !== b.length) return null;
  const out = new Array<number>(a.length);
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    if (x >= 0 && y >= 0 && x !== y) return null;
    out[i] = x >= 0 ? x : y;
  }
  return out;
}

function attrError(node: GraphNode, key: string, text: string, reason: string, hint: string): MXNetError {
  return new MXNetError(`variable \`${node.name}\` has an invalid ${key} attribute "${text}": ${reason}`, {
    op: 'null',
    params: node.attrs,
    hint,
  });
}

function shapeKind(npShape: boolean): AttrKind<Shape> {
  return {
    attribute: 'shape',
    attrKey: '__shape__',
    parseAttr(text, node) {
      let s: number[];
      try {
        s = parseShape(text);
        checkShape(s, '__shape__', true);
      } catch (e) {
        const reason = isMXNetError(e) ? e.reason : String(e);
        throw attrError(node, '__shape__', text, reason, 'write it as MXNet does, e.g. (128, 0) or [2,3]');
      }
      if (npShape) return s;
      if (s.some((d) => d < 0)) {
        throw attrError(
          node,
          '__shape__',
          text,
          'a legacy shape has no negative dims (0 marks an unknown one)',
          'pass npShape: true when the graph uses NumPy shape semantics',
        );
      }
      return fromLegacyShape(s);
    },
    validate(v, what) {
      if (!Array.isArray(v)) {
        throw new MXNetError(`${what} is not a shape: ${String(v)}`, {
          op: 'infer shape',
          hint: 'give shapes as arrays of dims, -1 for an unknown dim',
        });
      }
      checkShape(v, what, true);
    },
    isKnown: (v): v is Shape => v !== undefined && isShapeKnown(v),
    merge: mergeShape,
    equal: shapesEqual,
    copy: (v) => [...v],
    format: (v) => (v === undefined ? 'unknown' : shapeToString(v)),
    inputContext: (ins) => (ins.every((s) => s !== undefined) ? { shapes: ins as Shape[] } : {}),
    infer: (node, ins, outs) => (node.op as NonNullable<GraphNode['op']>).inferShape(node.parsed, ins, outs),
    backwardIdentity: true,
  };
}

const DTYPE_KIND: AttrKind<DTypeName> = {
  attribute: 'dtype',
  attrKey: '__dtype__',
  parseAttr(text, node) {
    const t = text.trim();
    try {
      if (/^-?\d+$/.test(t)) {
        const flag = Number(t);
        return flag === -1 ? undefined : dtypeFromFlag(flag).name;
      }
      return dtype(t).name;
    } catch (e) {
      const reason = isMXNetError(e) ? e.reason : String(e);
      throw attrError(
        node,
        '__dtype__',
        text,
        reason,
        "MXNet writes the dtype's type flag, e.g. 0 for float32",
      );
    }
  },
  validate(v, what) {
    try {
      dtype(v);
    } catch {
      throw new MXNetError(`${what} is not a dtype: ${String(v)}`, {
        op: 'infer dtype',
        hint: 'use a NumPy dtype name such as float32',
      });
    }
  },
  isKnown: (v): v is DTypeName => v !== undefined,
  merge: (a, b) => (a === b ? a : null),
  equal: (a, b) => a === b,
  copy: (v) => v,
  format: (v) => v ?? 'unknown',
  inputContext: (ins) => ({ dtypes: ins.map((d) => d ?? 'unknown') }),
  infer: (node, ins, outs) => (node.op as NonNullable<GraphNode['op']>).inferType(node.parsed, ins, outs),
  backwardIdentity: true,
};

/** MXNet's `NDArrayStorageType` flags. */
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
    // The op's function takes full slots: unknown ones are offered as dense.
    const i2 = ins.map((v) => v ?? 'default');
    const o2 = outs.map((v) => v ?? 'default');
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
 * Infer every entry's shape (MXNet `InferShape`). Variables are seeded from `known.nodes` (by
 * node id), else their `__shape__` attribute; `known.entries` pins any entry. Throws a
 * {@link GraphInferenceError} naming both nodes of a contradiction; nothing on the graph changes.
 */
export function inferShape(
  idx: IndexedGraph,
  known: InferInputs<Shape> = {},
  options: InferShapeOptions = {},
): InferResult<Shape> {
  return runInference(idx, known, shapeKind(options.npShape ?? false));
}

/** Infer every entry's dtype (MXNet `InferType`); variables read `__dtype__` (the type flag). */
export function inferType(idx: IndexedGraph, known: InferInputs<DTypeName> = {}): InferResult<DTypeName> {
  return runInference(idx, known, DTYPE_KIND);
}

/**
 * Infer every entry's storage type and each node's dispatch mode (MXNet `InferStorageType`).
 * Variables read `__storage_type__`. Ops without their own storage inference are dense: they
 * dispatch `fcompute`, or `fallback` when an input or output is sparse; ops with one dispatch
 * `fcomputeEx` when sparse storage is involved. Unknown inputs of an op become `default`.
 */
export function inferStorageType(
  idx: IndexedGraph,
  known: InferInputs<StorageType> = {},
): StorageInferResult {
  const res = runInference(idx, known, STORAGE_KIND);
  const dispatchModes = idx.nodes.map((inode, nid): DispatchMode | undefined => {
    const op = inode.node.op;
    if (op === null) return 'variable';
    const eids = [
      ...inode.inputs.map((e) => idx.entryId(e)),
      ...Array.from({ length: inode.node.numOutputs() }, (_, j) => idx.entryId(nid, j)),
    ];
    const types = eids.map((e) => res.values[e]);
    if (types.some((t) => t === undefined)) return undefined;
    if (types.every((t) => t === 'default')) return 'fcompute';
    return op.def.inferStorageType === undefined ? 'fallback' : 'fcomputeEx';
  });
  return { ...res, dispatchModes };
}
