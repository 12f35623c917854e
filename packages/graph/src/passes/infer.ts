/**
 * InferShape / InferType (MXNet `src/executor/infer_graph_attr_pass.cc`): the public entry points
 * and what each attribute means. The sweeps live in infer-engine.ts; this file holds the shape and
 * dtype {@link AttrKind}s: how a value is seeded from a variable's hidden attribute (`__shape__`,
 * `__dtype__`), when it counts as known, how two values merge, and which op function infers it.
 * InferStorageType, which also decides each node's dispatch mode, is in infer-storage.ts.
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
import type { IndexedGraph } from '../indexed.js';
import type { GraphNode } from '../node.js';
import { type AttrKind, type InferInputs, type InferResult, runInference } from './infer-engine.js';
import { attrError } from './infer-errors.js';

export type { InferInputs, InferResult } from './infer-engine.js';
export { GraphInferenceError, type InferAttribute, type InferConflict } from './infer-errors.js';
export {
  type DispatchMode,
  type InferStorageOptions,
  inferStorageType,
  type StorageInferResult,
} from './infer-storage.js';

/** Options of {@link inferShape}. */
export interface InferShapeOptions {
  /**
   * Read `__shape__` attributes with NumPy semantics (the graph is np-shape: `()` is a scalar,
   * 0 a zero-size dim, -1 unknown). Default false: legacy text, 0 = unknown dim, `()` = unknown.
   */
  readonly npShape?: boolean;
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
