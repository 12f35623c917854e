/**
 * Shapes and dtypes of a bound graph (MXNet's executor runs InferShape/InferType on the full graph
 * before planning memory). Two sweeps: the forward graph from the arguments and aux states, then
 * the full graph with each head gradient pinned to its output's shape and dtype.
 *
 * When the given arrays contradict the graph, the inference error names two nodes; `bind` users
 * want to know which argument is wrong and what it should be. So on a contradiction each variable
 * is left out in turn: if the others alone determine it, and differently from what was given, the
 * error names that argument with the expected and the given shape (or dtype).
 */
import { type DTypeName, MXNetError, type Shape, shapeToString } from '@mx/base';
import { type IndexedGraph, inferShape, inferType } from '@mx/graph';
import type { BoundGraph, SymbolLayout } from './graph.js';

/** Known values of variables, by node id of the forward graph (= of the bound graph). */
export interface KnownVars {
  readonly shapes: ReadonlyMap<number, Shape>;
  readonly dtypes: ReadonlyMap<number, DTypeName>;
}

export interface EntryTypes {
  readonly shapes: (Shape | undefined)[];
  readonly dtypes: (DTypeName | undefined)[];
}

const sameShape = (a: Shape | undefined, b: Shape): boolean =>
  a !== undefined && a.length === b.length && a.every((d, i) => d === b[i]);

function varKind(layout: SymbolLayout, nid: number): string {
  const node = layout.forward.nodes[nid]?.node;
  return node !== undefined && layout.auxNodes.includes(node) ? 'aux state' : 'argument';
}

/** Rethrow `e` as an error about the one variable that contradicts the others, when there is one. */
function diagnose<T>(
  layout: SymbolLayout,
  given: ReadonlyMap<number, T>,
  infer: (idx: IndexedGraph, known: ReadonlyMap<number, T>) => readonly (T | undefined)[],
  equal: (a: T | undefined, b: T) => boolean,
  show: (v: T) => string,
  what: 'shape' | 'dtype',
  e: unknown,
  op: string,
): never {
  const idx = layout.forward;
  for (const [nid, value] of given) {
    const others = new Map(given);
    others.delete(nid);
    let values: readonly (T | undefined)[];
    try {
      values = infer(idx, others);
    } catch {
      continue;
    }
    const expected = values[idx.entryId(nid)];
    if (expected !== undefined && !equal(expected, value)) {
      const name = idx.nodes[nid]?.node.name ?? `node ${nid}`;
      throw new MXNetError(
        `${varKind(layout, nid)} ${name}: expected ${what} ${show(expected)}, given ${show(value)}`,
        {
          op,
          hint: `the other arguments determine the ${what} of ${name}; bind an array of ${what} ${show(expected)}`,
          cause: e,
        },
      );
    }
  }
  throw e;
}

const inferShapes = (idx: IndexedGraph, nodes: ReadonlyMap<number, Shape>) =>
  inferShape(idx, { nodes }).values;
const inferTypes = (idx: IndexedGraph, nodes: ReadonlyMap<number, DTypeName>) =>
  inferType(idx, { nodes }).values;

/**
 * Infer the forward graph from the variables' known values (diagnosing contradictions); errors
 * carry `op` (the API the caller used: bind, CachedOp).
 */
export function inferForward(layout: SymbolLayout, known: KnownVars, op = 'bind'): EntryTypes {
  let shapes: (Shape | undefined)[];
  let dtypes: (DTypeName | undefined)[];
  try {
    shapes = [...inferShapes(layout.forward, known.shapes)];
  } catch (e) {
    diagnose(layout, known.shapes, inferShapes, sameShape, shapeToString, 'shape', e, op);
  }
  try {
    dtypes = [...inferTypes(layout.forward, known.dtypes)];
  } catch (e) {
    diagnose(layout, known.dtypes, inferTypes, (a, b) => a === b, String, 'dtype', e, op);
  }
  return { shapes, dtypes };
}

/** The variables (arguments, then aux states) whose shape or dtype is still unknown. */
export function unknownVars(layout: SymbolLayout, t: EntryTypes): string[] {
  const idx = layout.forward;
  const out: string[] = [];
  for (const nid of idx.inputNodes) {
    const eid = idx.entryId(nid);
    const s = t.shapes[eid];
    if (s === undefined || s.some((d) => d < 0) || t.dtypes[eid] === undefined) {
      out.push(
        `${idx.nodes[nid]?.node.name} (${s === undefined ? 'shape unknown' : shapeToString(s)}, ${t.dtypes[eid] ?? 'dtype unknown'})`,
      );
    }
  }
  return out;
}

/** Infer the whole bound graph; every entry must come out known. */
export function inferBound(
  layout: SymbolLayout,
  bound: BoundGraph,
  known: KnownVars,
  fwd: EntryTypes,
  op = 'bind',
): EntryTypes {
  const idx = bound.idx;
  if (idx === layout.forward) return fwd;
  const shapes = new Map(known.shapes);
  const dtypes = new Map(known.dtypes);
  bound.headGradNodes.forEach((nid, i) => {
    if (nid < 0) return;
    const eid = bound.outputEntries[i] as number;
    const s = fwd.shapes[eid];
    const t = fwd.dtypes[eid];
    if (s !== undefined) shapes.set(nid, s);
    if (t !== undefined) dtypes.set(nid, t);
  });
  const res: EntryTypes = {
    shapes: [...inferShape(idx, { nodes: shapes }).values],
    dtypes: [...inferType(idx, { nodes: dtypes }).values],
  };
  for (let eid = 0; eid < idx.numNodeEntries; eid++) {
    const s = res.shapes[eid];
    if (s === undefined || s.some((d) => d < 0) || res.dtypes[eid] === undefined) {
      let nid = 0;
      while ((idx.rowPtr[nid + 1] as number) <= eid) nid++;
      const node = idx.nodes[nid]?.node;
      throw new MXNetError(
        `cannot infer the ${s === undefined || s.some((d) => d < 0) ? 'shape' : 'dtype'} of output ${eid - (idx.rowPtr[nid] as number)} of node ${node?.name} (${node?.op?.name ?? 'variable'})`,
        {
          op,
          hint: 'the executor needs every shape and dtype; give the input shapes that determine it',
        },
      );
    }
  }
  return res;
}
