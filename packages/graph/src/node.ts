/**
 * The graph IR (nnvm's `Node`/`NodeEntry`): a node is an operator call (op + attributes + name) or
 * a variable; an entry is one output of a node, `(node, index, version)`. Graphs are held by their
 * output entries only — everything reachable from them is the graph — so symbols compose by
 * sharing nodes, exactly as nnvm's do.
 *
 * A node keeps its attributes twice: `attrs`, the string dictionary MXNet keeps (`NodeAttrs.dict`,
 * what symbol JSON stores, hidden keys such as `__lr_mult__` included), and `parsed`, the op's
 * typed parameters parsed from it once (`NodeAttrs.parsed`). The dictionary is what round-trips;
 * the parsed form is what inference, gradients and kernels read.
 */
import { MXNetError } from '@mx/base';
import type { Attrs, Op } from '@mx/ops';

/** One output of a node (nnvm `NodeEntry`). `version` counts writes to a variable (kept for JSON). */
export interface NodeEntry {
  readonly node: GraphNode;
  readonly index: number;
  readonly version: number;
}

/** An entry `(node, index, version)`. */
export function entry(node: GraphNode, index = 0, version = 0): NodeEntry {
  return { node, index, version };
}

const EMPTY_ATTRS: Attrs = Object.freeze({});

/**
 * MXNet's hidden attribute keys (`kHiddenKeys`): annotations, not op parameters, stored on nodes as
 * `__key__` (`__lr_mult__`); files older than 1.9.1 may hold them bare (`lr_mult`).
 */
export const HIDDEN_KEYS: readonly string[] = Object.freeze([
  'ctx_group',
  'lr_mult',
  'wd_mult',
  'force_mirroring',
  'mirror_stage',
  'profiler_scope',
]);

/** True for MXNet's hidden attribute keys (`__shape__`, `__lr_mult__`...): never op parameters. */
export function isHiddenKey(k: string): boolean {
  return k.length > 4 && k.startsWith('__') && k.endsWith('__');
}

/** A graph node (nnvm `Node`): an op call, or a variable when `op` is null. */
export class GraphNode {
  /** The operator; null for a variable (`"op": "null"` in JSON). */
  readonly op: Op | null;
  /** Node name (`fc1`, `data`, `fc1_weight`). */
  name: string;
  /** Nodes that must run before this one without passing data (nnvm `control_deps`). */
  readonly controlDeps: GraphNode[];
  /** The node's inputs. */
  readonly inputs: NodeEntry[];
  #attrs: Record<string, string>;
  #parsed: Attrs;

  private constructor(
    op: Op | null,
    name: string,
    attrs: Record<string, string>,
    parsed: Attrs,
    inputs: NodeEntry[],
    controlDeps: GraphNode[],
  ) {
    this.op = op;
    this.name = name;
    this.#attrs = attrs;
    this.#parsed = parsed;
    this.inputs = inputs;
    this.controlDeps = controlDeps;
  }

  /** A variable node (`sym.var`): attributes are hidden keys (`__shape__`, `__dtype__`, ...). */
  static variable(name: string, attrs: Readonly<Record<string, string>> = {}): GraphNode {
    return new GraphNode(null, name, { ...attrs }, EMPTY_ATTRS, [], []);
  }

  /**
   * An op node from MXNet's string attributes (what JSON holds and the Symbol API writes). The
   * parameters are parsed now: an unknown or malformed one throws an MXNetError naming the node.
   * The input count must be the op's (`numInputs` of the parsed parameters).
   */
  static create(
    op: Op,
    name: string,
    attrs: Readonly<Record<string, string>>,
    inputs: readonly NodeEntry[],
    controlDeps: readonly GraphNode[] = [],
  ): GraphNode {
    const parsed = parseNodeAttrs(op, name, attrs);
    const n = op.numInputs(parsed);
    if (inputs.length !== n) {
      throw new MXNetError(
        `node ${name} (${op.name}) has ${inputs.length} input(s); the operator takes ${n}${n <= 32 ? ` (${op.listInputNames(parsed).join(', ')})` : ''}`,
        { op: op.name, params: attrs, hint: 'pass one input per argument of the operator' },
      );
    }
    return new GraphNode(op, name, { ...attrs }, parsed, [...inputs], [...controlDeps]);
  }

  /**
   * An op node from typed parameters (gradient and fusion passes): the dictionary holds MXNet's
   * string form of exactly the keys given, as MXNet's string-kwargs path does.
   */
  static fromParams(
    op: Op,
    name: string,
    params: Readonly<Record<string, unknown>> | undefined,
    inputs: readonly NodeEntry[],
    controlDeps: readonly GraphNode[] = [],
  ): GraphNode {
    const parsed = op.parseParams(params);
    const attrs: Record<string, string> = {};
    for (const k of Object.keys(params ?? {}).sort()) {
      const v = (params as Record<string, unknown>)[k];
      if (v === undefined) continue;
      const spec = op.params[k];
      attrs[k] = spec ? spec.format((parsed as Record<string, unknown>)[k]) : String(v);
    }
    return GraphNode.create(op, name, attrs, inputs, controlDeps);
  }

  get isVariable(): boolean {
    return this.op === null;
  }

  /** The string attribute dictionary (a copy; use `setAttr` to change it). */
  get attrs(): Readonly<Record<string, string>> {
    return this.#attrs;
  }

  /** The op's parsed parameters (empty for variables). */
  get parsed(): Attrs {
    return this.#parsed;
  }

  /**
   * Set one attribute (MXNet `_set_attr`). An op parameter is re-parsed and checked first, so a bad
   * value changes nothing; hidden keys and other annotations are stored as given.
   */
  setAttr(key: string, value: string): void {
    const next = { ...this.#attrs, [key]: value };
    if (this.op !== null && !isHiddenKey(key) && key in this.op.params) {
      this.#parsed = parseNodeAttrs(this.op, this.name, next);
    }
    this.#attrs = next;
  }

  /** Number of outputs, hidden ones included (1 for a variable). */
  numOutputs(): number {
    return this.op === null ? 1 : this.op.numOutputs(this.#parsed);
  }

  /** Number of outputs the user sees. */
  numVisibleOutputs(): number {
    return this.op === null ? 1 : this.op.numVisibleOutputs(this.#parsed);
  }

  /** Argument names of the op (`['data', 'weight', 'bias']`); empty for a variable. */
  listInputNames(): readonly string[] {
    return this.op === null ? [] : this.op.listInputNames(this.#parsed);
  }

  /** Output names of the op (`['output']`); `[name]` semantics for a variable are the symbol layer's. */
  listOutputNames(): readonly string[] {
    return this.op === null ? ['output'] : this.op.listOutputNames(this.#parsed);
  }

  /** Inputs this op writes (aux states such as BatchNorm's moving stats). */
  mutateInputs(): readonly number[] {
    return this.op === null ? [] : this.op.mutateInputs(this.#parsed);
  }

  toString(): string {
    return this.op === null ? `Variable:${this.name}` : `${this.op.name}:${this.name}`;
  }
}

/** Parse a node's string attributes with its op's schema (hidden keys skipped); errors name the node. */
export function parseNodeAttrs(op: Op, name: string, attrs: Readonly<Record<string, string>>): Attrs {
  const params: Record<string, string> = {};
  for (const [k, v] of Object.entries(attrs)) if (!isHiddenKey(k) && k in op.params) params[k] = v;
  // Keys that are neither parameters nor hidden: MXNet rejects them at parse time with its message.
  for (const k of Object.keys(attrs))
    if (!isHiddenKey(k) && !(k in op.params)) params[k] = attrs[k] as string;
  try {
    return op.parseParams(params);
  } catch (e) {
    if (e instanceof MXNetError) {
      throw new MXNetError(`node ${name}: ${e.reason}`, {
        op: op.name,
        params: attrs,
        hint: e.hint,
        cause: e,
      });
    }
    throw e;
  }
}
