/**
 * Error reports of the inference passes. MXNet says "Error in operator fc1: Shape inconsistent,
 * Provided = [1,100], inferred shape=[1000,100]" and leaves the user to work out which node gave
 * the other value. A graph has two parties to every contradiction — the node that produced (or
 * first pinned) an entry and the node that now disagrees — so every report names both, with both
 * values, the failing op's parameters and inputs, and what to change.
 *
 * When an op's own inference throws, the report is localized by asking the op again with one
 * known slot cleared at a time: the slot whose cleared-out run succeeds and yields a value that
 * contradicts what the graph holds is the disputed entry. This only runs on the error path.
 */
import { isMXNetError, MXNetError, type MXNetErrorContext } from '@mx/base';
import type { IndexedEntry, IndexedGraph } from '../indexed.js';
import type { GraphNode } from '../node.js';

/** The attribute an inference pass computes. */
export type InferAttribute = 'shape' | 'dtype' | 'storage type';

/** Facts about the disputed entry of a failed inference. */
export interface InferConflict {
  /** Entry id of the disputed entry. */
  readonly entryId: number;
  /** The node that produces the entry. */
  readonly producer: GraphNode;
  /** The node whose inference (or a given value) established what the graph holds. */
  readonly establishedBy: GraphNode | undefined;
  /** The value the graph holds, formatted. */
  readonly held: string;
  /** The value the failing node wants, formatted. */
  readonly wanted: string;
}

/**
 * An inference contradiction: an MXNetError that also names the node whose inference failed and,
 * when it could be found, the disputed entry with its producer and both values.
 */
export class GraphInferenceError extends MXNetError {
  readonly attribute: InferAttribute;
  /** Name of the node whose inference failed or disagreed. */
  readonly nodeName: string;
  readonly conflict: InferConflict | undefined;

  constructor(
    message: string,
    context: MXNetErrorContext,
    attribute: InferAttribute,
    node: GraphNode,
    conflict?: InferConflict,
  ) {
    super(message, context);
    this.attribute = attribute;
    this.nodeName = node.name;
    this.conflict = conflict;
  }
}

/** `variable \`data\`` or `node \`fc1\` (FullyConnected)`. */
export function describeNode(node: GraphNode): string {
  return node.op === null ? `variable \`${node.name}\`` : `node \`${node.name}\` (${node.op.name})`;
}

/** `input 1 (weight)` / `output 0 (output)`. */
export function describeSlot(node: GraphNode, isInput: boolean, i: number): string {
  const names = isInput ? node.listInputNames() : node.listOutputNames();
  const n = names[i];
  return `${isInput ? 'input' : 'output'} ${i}${n === undefined ? '' : ` (${n})`}`;
}

/** How the engine describes its values to the error builder. */
export interface ErrorFormat<T> {
  readonly attribute: InferAttribute;
  format(v: T | undefined): string;
  /** Extra MXNetError context for the failing node's inputs (`shapes` or `dtypes`). */
  inputContext(ins: readonly (T | undefined)[]): Partial<MXNetErrorContext>;
}

/** What the engine knows about the failing node when it builds a report. */
export interface FailureSite<T> {
  readonly idx: IndexedGraph;
  readonly nid: number;
  /** Values of the node's input slots as the graph holds them. */
  readonly ins: readonly (T | undefined)[];
  /** Node id whose inference (or seed) set each entry's current value; -1 when none. */
  readonly origin: Int32Array;
  /** Entries whose value was given by the caller or a variable attribute. */
  readonly given: Uint8Array;
}

function inputsLine<T>(site: FailureSite<T>, fmt: ErrorFormat<T>): string {
  const { idx, nid, ins } = site;
  const node = idx.nodes[nid]?.node as GraphNode;
  const names = node.listInputNames();
  const parts = (idx.nodes[nid]?.inputs ?? []).map((e, i) => {
    const src = idx.nodes[e.nodeId]?.node as GraphNode;
    const from = src.op === null ? describeNode(src) : `output ${e.index} of ${describeNode(src)}`;
    return `${names[i] ?? `arg${i}`} = ${fmt.format(ins[i])} from ${from}`;
  });
  return parts.length === 0 ? 'no inputs' : `inputs: ${parts.join('; ')}`;
}

function baseContext<T>(site: FailureSite<T>, fmt: ErrorFormat<T>): MXNetErrorContext {
  const node = site.idx.nodes[site.nid]?.node as GraphNode;
  return { op: node.op?.name ?? 'null', params: node.attrs, ...fmt.inputContext(site.ins) };
}

/**
 * The report for a contradiction on one entry: `node` (slot `isInput`/`i`) wants `wanted` but the
 * graph holds `held` for `entry`.
 */
export function conflictError<T>(
  site: FailureSite<T>,
  fmt: ErrorFormat<T>,
  slot: { readonly isInput: boolean; readonly i: number; readonly entry: IndexedEntry },
  held: T,
  wanted: T,
  cause?: unknown,
): GraphInferenceError {
  const { idx, nid } = site;
  const node = idx.nodes[nid]?.node as GraphNode;
  const producer = idx.nodes[slot.entry.nodeId]?.node as GraphNode;
  const eid = idx.entryId(slot.entry);
  const o = site.origin[eid] as number;
  const establishedBy = o >= 0 ? (idx.nodes[o]?.node as GraphNode) : undefined;
  const what = fmt.attribute;
  const entryDesc = slot.isInput
    ? producer.op === null
      ? `the ${describeNode(producer)}`
      : `output ${slot.entry.index} of ${describeNode(producer)}`
    : 'its own output';
  let source = '';
  if (site.given[eid] === 1 && establishedBy === producer) source = ' (given)';
  else if (establishedBy !== undefined && establishedBy !== node && establishedBy !== producer) {
    source = ` (inferred by ${describeNode(establishedBy)})`;
  }
  const opSays = isMXNetError(cause) ? `; ${node.op?.name ?? 'the op'} reported: ${cause.reason}` : '';
  const message =
    `${what} inference: ${describeNode(node)} needs ${what} ${fmt.format(wanted)} for its ` +
    `${describeSlot(node, slot.isInput, slot.i)}, but ${entryDesc} has ${what} ${fmt.format(held)}${source}` +
    `${opSays}\n  ${inputsLine(site, fmt)}`;
  let hint: string;
  if (site.given[eid] === 1 && establishedBy === producer) {
    hint =
      producer.op === null
        ? `check the ${what} given for variable \`${producer.name}\` (${describeNode(node)} needs ${fmt.format(wanted)}), or the parameters of node \`${node.name}\``
        : `check the ${what} pinned for output ${slot.entry.index} of ${describeNode(producer)}, or the parameters of node \`${node.name}\``;
  } else if (establishedBy !== undefined && establishedBy !== node && establishedBy !== producer) {
    hint = `${describeNode(establishedBy)} and ${describeNode(node)} disagree about this entry: check their parameters and the ${what}s given for the variables feeding them`;
  } else {
    hint = `check the parameters of ${describeNode(producer)} and ${describeNode(node)}`;
  }
  return new GraphInferenceError(message, { ...baseContext(site, fmt), hint, cause }, what, node, {
    entryId: eid,
    producer,
    establishedBy,
    held: fmt.format(held),
    wanted: fmt.format(wanted),
  });
}

/** The report for an op whose inference threw and could not be pinned to one entry. */
export function opFailureError<T>(
  site: FailureSite<T>,
  fmt: ErrorFormat<T>,
  cause: unknown,
): GraphInferenceError {
  const node = site.idx.nodes[site.nid]?.node as GraphNode;
  const reason = isMXNetError(cause) ? cause.reason : String((cause as Error)?.message ?? cause);
  const message = `${fmt.attribute} inference failed at ${describeNode(node)}: ${reason}\n  ${inputsLine(site, fmt)}`;
  const hint =
    (isMXNetError(cause) ? cause.hint : undefined) ??
    `check the parameters of node \`${node.name}\` and the ${fmt.attribute}s of its inputs`;
  return new GraphInferenceError(message, { ...baseContext(site, fmt), hint, cause }, fmt.attribute, node);
}

/** A variable's hidden attribute (`__shape__`, `__dtype__`, `__storage_type__`) cannot be read. */
export function attrError(
  node: GraphNode,
  key: string,
  text: string,
  reason: string,
  hint: string,
): MXNetError {
  return new MXNetError(`variable \`${node.name}\` has an invalid ${key} attribute "${text}": ${reason}`, {
    op: 'null',
    params: node.attrs,
    hint,
  });
}
