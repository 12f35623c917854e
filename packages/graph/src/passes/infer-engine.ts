/**
 * The inference engine shared by InferShape, InferType and InferStorageType (MXNet's
 * `InferAttr` template in `src/executor/infer_graph_attr_pass.cc`): one value per entry, seeded
 * from the caller and the variables' hidden attributes, refined by alternating forward and
 * backward sweeps in which each op fills what it can of its input and output slots, until the
 * number of unknown entries stops falling.
 *
 * What differs from a straight port is where values meet: MXNet overwrites the entry with whatever
 * the op hands back, we merge it with what the graph already holds, so an op that ignored a known
 * value, or two slots reading one entry, is caught as a contradiction naming both nodes instead
 * of silently replacing the earlier result. Ops get copies of their slots and the graph is never
 * touched; the per-attribute details (what "known" means, merging, parsing `__shape__`) come in
 * an {@link AttrKind}.
 */
import { MXNetError } from '@mx/base';
import type { IndexedEntry, IndexedGraph } from '../indexed.js';
import type { GraphNode } from '../node.js';
import { type BackwardCorrespondence, backwardCorrespondence } from './infer-backward.js';
import {
  conflictError,
  describeNode,
  describeSlot,
  type ErrorFormat,
  type FailureSite,
  GraphInferenceError,
  opFailureError,
} from './infer-errors.js';

/** Known inputs: by variable node id. Entries may also be pinned by entry id. */
export interface InferInputs<T> {
  readonly nodes?: ReadonlyMap<number, T>;
  readonly entries?: ReadonlyMap<number, T>;
}

/** Per-entry results of an inference pass (indexed by entry id). */
export interface InferResult<T> {
  readonly values: readonly (T | undefined)[];
  /** Entries still unknown (or partially known, for shapes). */
  readonly numUnknown: number;
}

/** How one attribute (shape, dtype, storage type) is inferred. */
export interface AttrKind<T> extends ErrorFormat<T> {
  /** The variables' hidden attribute holding a seed (`__shape__`). */
  readonly attrKey: string;
  /** Parse the hidden attribute (undefined: says "unknown"); throws an MXNetError naming `node`. */
  parseAttr(text: string, node: GraphNode): T | undefined;
  /** Check a caller-given value; throws an MXNetError naming `what`. */
  validate(v: T, what: string): void;
  /** Fully known (a shape with a -1 dim is not). */
  isKnown(v: T | undefined): v is T;
  /** The value both agree on, or null when they contradict. */
  merge(a: T, b: T): T | null;
  equal(a: T, b: T): boolean;
  copy(v: T): T;
  /** Run the op's inference on the slots (filled in place). */
  infer(node: GraphNode, ins: (T | undefined)[], outs: (T | undefined)[]): boolean;
  /** Backward nodes may copy from their forward node (MXNet does so for shapes and dtypes). */
  readonly backwardIdentity: boolean;
}

interface Slot {
  readonly isInput: boolean;
  readonly i: number;
  readonly entry: IndexedEntry;
}

/** Run the sweeps; the values returned are fresh copies. */
export function runInference<T>(idx: IndexedGraph, known: InferInputs<T>, kind: AttrKind<T>): InferResult<T> {
  const n = idx.numNodeEntries;
  const values: (T | undefined)[] = new Array(n).fill(undefined);
  const origin = new Int32Array(n).fill(-1);
  const given = new Uint8Array(n);
  seed(idx, known, kind, values, origin, given);

  const nodes = idx.nodes;
  const rowPtr = idx.rowPtr;
  const checked = new Uint8Array(nodes.length);
  const correspondence = new Map<number, BackwardCorrespondence | undefined>();
  const copyOf = (v: T | undefined): T | undefined => (v === undefined ? undefined : kind.copy(v));
  const site = (nid: number): FailureSite<T> => ({
    idx,
    nid,
    ins: (nodes[nid]?.inputs ?? []).map((e) => values[idx.entryId(e)]),
    origin,
    given,
  });
  const slotsOf = (nid: number): Slot[] => {
    const inode = nodes[nid] as (typeof nodes)[number];
    const out: Slot[] = inode.inputs.map((entry, i) => ({ isInput: true, i, entry }));
    const nOut = (rowPtr[nid + 1] as number) - (rowPtr[nid] as number);
    for (let j = 0; j < nOut; j++)
      out.push({ isInput: false, i: j, entry: { nodeId: nid, index: j, version: 0 } });
    return out;
  };

  /** Merge `v` into entry `eid` on behalf of node `nid`; a contradiction is reported by `fail`. */
  const assign = (eid: number, v: T | undefined, nid: number, fail: (held: T) => Error): void => {
    if (v === undefined) return;
    const cur = values[eid];
    if (cur === undefined) {
      values[eid] = v;
      origin[eid] = nid;
      return;
    }
    const merged = kind.merge(cur, v);
    if (merged === null) throw fail(cur);
    if (!kind.equal(merged, cur)) {
      values[eid] = merged;
      origin[eid] = nid;
    }
  };

  /** Localize an op's failure to one disputed slot (see infer-errors.ts). */
  const diagnose = (nid: number, cause: unknown): Error => {
    const node = (nodes[nid] as (typeof nodes)[number]).node;
    const slots = slotsOf(nid);
    const read = (): (T | undefined)[] => slots.map((s) => copyOf(values[idx.entryId(s.entry)]));
    for (let k = 0; k < slots.length; k++) {
      const s = slots[k] as Slot;
      const held = values[idx.entryId(s.entry)];
      if (held === undefined) continue;
      const vals = read();
      vals[k] = undefined;
      const nIn = nodes[nid]?.inputs.length ?? 0;
      const ins = vals.slice(0, nIn);
      const outs = vals.slice(nIn);
      try {
        kind.infer(node, ins, outs);
      } catch {
        continue;
      }
      const wanted = s.isInput ? ins[s.i] : outs[s.i];
      if (wanted !== undefined && kind.merge(held, wanted) === null) {
        return conflictError(site(nid), kind, s, held, wanted, cause);
      }
    }
    return opFailureError(site(nid), kind, cause);
  };

  /** MXNet's TIsBackward branch, as a fallback: copy from the forward node in control_deps[0]. */
  const copyFromForward = (nid: number): void => {
    const inode = nodes[nid] as (typeof nodes)[number];
    const fnid = inode.controlDeps[0] as number;
    const fnode = nodes[fnid];
    if (fnode === undefined || fnode.node.op === null) return;
    if (!correspondence.has(nid)) correspondence.set(nid, backwardCorrespondence(fnode.node, inode.node));
    const corr = correspondence.get(nid);
    if (corr === undefined) return;
    const nOut = (rowPtr[nid + 1] as number) - (rowPtr[nid] as number);
    for (const [k, i] of corr.outputs) {
      const fe = fnode.inputs[i];
      if (k >= nOut || fe === undefined) continue;
      const v = values[idx.entryId(fe)];
      assign(idx.entryId(nid, k), copyOf(v), nid, (held) =>
        backwardError(idx, kind, nid, false, k, fnid, true, i, held, v as T),
      );
    }
    for (const [k, j] of corr.inputs) {
      const be = inode.inputs[k];
      if (be === undefined || j >= fnode.node.numOutputs()) continue;
      const v = values[idx.entryId(fnid, j)];
      assign(idx.entryId(be), copyOf(v), nid, (held) =>
        backwardError(idx, kind, nid, true, k, fnid, false, j, held, v as T),
      );
    }
  };

  const step = (nid: number): void => {
    const inode = nodes[nid] as (typeof nodes)[number];
    const node = inode.node;
    if (node.op === null) return;
    const slots = slotsOf(nid);
    const nIn = inode.inputs.length;
    const ins: (T | undefined)[] = [];
    const outs: (T | undefined)[] = [];
    let allKnown = true;
    for (const s of slots) {
      const v = copyOf(values[idx.entryId(s.entry)]);
      if (!kind.isKnown(v)) allKnown = false;
      (s.isInput ? ins : outs).push(v);
    }
    // MXNet skips nodes whose slots are all known; we still run each op once, so a value the
    // caller pinned on an op's output is checked against the op.
    if (allKnown && checked[nid] === 1) return;
    let ok: boolean;
    try {
      ok = kind.infer(node, ins, outs);
    } catch (e) {
      throw diagnose(nid, e);
    }
    checked[nid] = 1;
    for (let k = 0; k < slots.length; k++) {
      const s = slots[k] as Slot;
      const v = k < nIn ? ins[k] : outs[k - nIn];
      assign(idx.entryId(s.entry), v, nid, (held) => conflictError(site(nid), kind, s, held, v as T));
    }
    if (!ok && kind.backwardIdentity && node.op.def.isBackward === true && inode.controlDeps.length > 0) {
      copyFromForward(nid);
    }
  };

  const countUnknown = (): number => {
    let c = 0;
    for (let e = 0; e < n; e++) if (!kind.isKnown(values[e])) c++;
    return c;
  };

  // MXNet's loop: sweep forward, then backward, ... while unknowns remain and their count falls.
  let numUnknown = n;
  let last: number;
  let sweep = 0;
  do {
    if (sweep % 2 === 0) for (let nid = 0; nid < nodes.length; nid++) step(nid);
    else for (let nid = nodes.length - 1; nid >= 0; nid--) step(nid);
    last = numUnknown;
    numUnknown = countUnknown();
    sweep++;
  } while (numUnknown > 0 && last > numUnknown);

  return { values: values.map(copyOf), numUnknown };
}

/** Seed the variables (caller's values, else their hidden attribute) and the pinned entries. */
function seed<T>(
  idx: IndexedGraph,
  known: InferInputs<T>,
  kind: AttrKind<T>,
  values: (T | undefined)[],
  origin: Int32Array,
  given: Uint8Array,
): void {
  const what = kind.attribute;
  for (const [nid, v] of known.nodes ?? []) {
    const inode = idx.nodes[nid];
    if (inode === undefined || inode.node.op !== null) {
      throw new MXNetError(
        `${what} given for node id ${nid}, which is ${inode === undefined ? 'not in the graph' : `${describeNode(inode.node)}, not a variable`}`,
        {
          op: `infer ${what}`,
          hint: `known.nodes takes variable node ids (${idx.inputNodes.length} variables); pin op outputs with known.entries`,
        },
      );
    }
    kind.validate(v, `${what} given for ${describeNode(inode.node)}`);
  }
  for (const nid of idx.inputNodes) {
    const node = (idx.nodes[nid] as (typeof idx.nodes)[number]).node;
    const v = known.nodes?.get(nid);
    const text = node.attrs[kind.attrKey];
    const fromAttr = text === undefined ? undefined : kind.parseAttr(text, node);
    let value = v === undefined ? undefined : kind.copy(v);
    if (fromAttr !== undefined) {
      if (value === undefined) value = fromAttr;
      else if (!kind.isKnown(value)) {
        const merged = kind.merge(value, fromAttr);
        if (merged === null) {
          throw new MXNetError(
            `the ${what} given for ${describeNode(node)}, ${kind.format(value)}, contradicts its ${kind.attrKey} attribute ${kind.format(fromAttr)}`,
            {
              op: `infer ${what}`,
              hint: `give ${node.name} a ${what} that agrees with ${kind.format(fromAttr)}`,
            },
          );
        }
        value = merged;
      }
      // A fully known given value wins over the attribute, as in MXNet.
    }
    if (value === undefined) continue;
    const eid = idx.entryId(nid, 0);
    values[eid] = value;
    origin[eid] = nid;
    given[eid] = 1;
  }
  for (const [eid, v] of known.entries ?? []) {
    if (!Number.isInteger(eid) || eid < 0 || eid >= values.length) {
      throw new MXNetError(`${what} pinned for entry ${eid}, which is not in the graph`, {
        op: `infer ${what}`,
        hint: `entry ids run from 0 to ${values.length - 1} (IndexedGraph.entryId)`,
      });
    }
    const nid = producerOf(idx, eid);
    kind.validate(v, `${what} pinned for entry ${eid}`);
    const cur = values[eid];
    const merged = cur === undefined ? kind.copy(v) : kind.merge(cur, v);
    if (merged === null) {
      throw new MXNetError(
        `the ${what} pinned for entry ${eid} (${describeNode(idx.nodes[nid]?.node as GraphNode)}), ${kind.format(v)}, contradicts the ${what} given for it, ${kind.format(cur)}`,
        { op: `infer ${what}`, hint: 'give the variable one value, in known.nodes or known.entries' },
      );
    }
    values[eid] = merged;
    origin[eid] = nid;
    given[eid] = 1;
  }
}

/** The node producing entry `eid` (binary search of rowPtr). */
export function producerOf(idx: IndexedGraph, eid: number): number {
  const rp = idx.rowPtr;
  let lo = 0;
  let hi = idx.nodes.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((rp[mid] as number) <= eid) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** A backward node's slot contradicts the forward entry it mirrors. */
function backwardError<T>(
  idx: IndexedGraph,
  kind: AttrKind<T>,
  nid: number,
  bIsInput: boolean,
  k: number,
  fnid: number,
  fIsInput: boolean,
  j: number,
  held: T,
  fwdValue: T,
): GraphInferenceError {
  const bnode = idx.nodes[nid]?.node as GraphNode;
  const fnode = idx.nodes[fnid]?.node as GraphNode;
  const what = kind.attribute;
  const eid = bIsInput ? idx.entryId(idx.nodes[nid]?.inputs[k] as IndexedEntry) : idx.entryId(nid, k);
  const message =
    `${what} inference: the ${describeSlot(bnode, bIsInput, k)} of backward ${describeNode(bnode)} has ${what} ` +
    `${kind.format(held)}, but it mirrors the ${describeSlot(fnode, fIsInput, j)} of its forward ${describeNode(fnode)}, ` +
    `whose ${what} is ${kind.format(fwdValue)}`;
  return new GraphInferenceError(
    message,
    {
      op: bnode.op?.name ?? 'null',
      params: bnode.attrs,
      hint: `a gradient has the ${what} of the value it is the gradient of: check how ${describeNode(bnode)} was built from ${describeNode(fnode)}`,
    },
    what,
    bnode,
    {
      entryId: eid,
      producer: idx.nodes[producerOf(idx, eid)]?.node as GraphNode,
      establishedBy: fnode,
      held: kind.format(held),
      wanted: kind.format(fwdValue),
    },
  );
}
