/**
 * `Symbol`: MXNet's symbolic graph handle (`mx.sym.Symbol`), named as MXNet names it.
 *
 * A symbol is a list of output entries of a shared graph of @mx/graph nodes (nnvm's `Symbol`):
 * building on a symbol never changes it, `copy()` and `compose()` make new nodes, and
 * `setAttr` changes the head node in place, where every symbol sharing it sees the change — as in
 * MXNet. The methods keep MXNet's semantics and camelCase names; listing and JSON follow the node
 * order MXNet uses (DFS post-order), so `listArguments()` and saved files agree with MXNet's.
 *
 * The class name shadows the global `Symbol` inside this package: well-known symbols are reached
 * through `globalThis.Symbol`. Inference lives in infer.ts, op creation in create.ts, and binding
 * in ../executor (`simpleBind` / `bind` delegate to it with the API's runtime).
 */
import { MXNetError } from '@mx/base';
import {
  entry,
  Graph,
  type GraphNode,
  IndexedGraph,
  type NodeEntry,
  type SaveJSONOptions,
  saveJSON,
} from '@mx/graph';
import type { Runtime } from '@mx/ndarray';
import {
  type BindOptions,
  bind,
  type Executor,
  type SimpleBindOptions,
  simpleBind,
} from '../executor/index.js';
import type { SymbolApi } from './api.js';
import { checkStringAttrs, isReplacedHiddenKey, pyFloat, setAttrKey } from './attrs.js';
import { copyGraph, postOrderNodes } from './graph-copy.js';
import {
  type InferShapePartialResult,
  type InferShapeResult,
  type InferTypePartialResult,
  type InferTypeResult,
  inferShapes,
  inferTypes,
  type ShapeInputs,
  type TypeInputs,
} from './infer.js';

const ITERATOR: typeof globalThis.Symbol.iterator = globalThis.Symbol.iterator;

/** Node name `fc1` + output name `output` → `fc1_output`; a variable's own name (nnvm `ListOutputNames`). */
export function outputName(e: NodeEntry): string {
  const n = e.node;
  if (n.op === null) return n.name;
  const rname = n.listOutputNames()[e.index] ?? `output${e.index}`;
  return n.name.length === 0 ? rname : `${n.name}_${rname}`;
}

/** A symbolic graph: one or several outputs (`mx.sym.Symbol`). */
// biome-ignore lint/suspicious/noShadowRestrictedNames: MXNet's class name (mx.sym.Symbol)
export class Symbol {
  /** The SymbolApi that created this symbol (names, scopes and the registry for new ops). */
  readonly api: SymbolApi;
  /** The output entries (node, output index, version). */
  readonly outputs: readonly NodeEntry[];

  /** Wrap output entries; users get symbols from `sym.var`, `sym.<Op>` and `sym.fromJSON`. */
  constructor(api: SymbolApi, outputs: readonly NodeEntry[]) {
    this.api = api;
    this.outputs = Object.freeze([...outputs]);
  }

  // ---- structure ------------------------------------------------------------------------------

  /** The node name; undefined for a group of several nodes (MXNet returns None). */
  get name(): string | undefined {
    const node = this.#singleNode();
    return node?.name;
  }

  /** Number of outputs (`len(sym)`). */
  get length(): number {
    return this.outputs.length;
  }

  /** Output `index`, or the output named `name` (`sym['fc1_output']`). */
  get(index: number | string): Symbol {
    if (typeof index === 'string') {
      const names = this.listOutputs();
      const hits = names.flatMap((n, i) => (n === index ? [i] : []));
      if (hits.length > 1)
        throw new MXNetError(`There are multiple outputs with name "${index}"`, { op: 'Symbol.get' });
      if (hits.length === 0) {
        throw new MXNetError(`Cannot find output that matches name "${index}"`, {
          op: 'Symbol.get',
          hint: `the outputs are ${names.slice(0, 20).join(', ')}${names.length > 20 ? ', ...' : ''}`,
        });
      }
      index = hits[0] as number;
    }
    if (!Number.isInteger(index) || index < 0 || index >= this.outputs.length) {
      throw new MXNetError(
        `output index ${index} is out of range for a symbol with ${this.outputs.length} outputs`,
        {
          op: 'Symbol.get',
          hint: `use 0..${this.outputs.length - 1} (at(-1) counts from the end)`,
        },
      );
    }
    return new Symbol(this.api, [this.outputs[index] as NodeEntry]);
  }

  /** Output `index`; negative counts from the end. */
  at(index: number): Symbol {
    return this.get(index < 0 ? this.outputs.length + index : index);
  }

  /** The outputs one by one (`for (const s of group)`, `[...sliced]`). */
  *[ITERATOR](): IterableIterator<Symbol> {
    for (let i = 0; i < this.outputs.length; i++) yield this.get(i);
  }

  /** Every output of every node, variables by name (MXNet `get_internals`). */
  getInternals(): Symbol {
    const out: NodeEntry[] = [];
    for (const n of postOrderNodes(this.outputs)) {
      if (n.op === null) out.push(entry(n, 0, this.api.versions.of(n)));
      else for (let i = 0; i < n.numVisibleOutputs(); i++) out.push(entry(n, i, 0));
    }
    return new Symbol(this.api, out);
  }

  /** The inputs of the output nodes; undefined when they have none (MXNet returns None). */
  getChildren(): Symbol | undefined {
    const seen = new Set<GraphNode>();
    const out: NodeEntry[] = [];
    for (const e of this.outputs) {
      if (seen.has(e.node)) continue;
      seen.add(e.node);
      out.push(...e.node.inputs);
    }
    return out.length === 0 ? undefined : new Symbol(this.api, out);
  }

  /** Names of the arguments: variables no op writes, in graph order. */
  listArguments(): string[] {
    const idx = new IndexedGraph(this.outputs);
    return idx.inputNodes.filter((n) => !idx.mutableInputNodes.has(n)).map((n) => this.#nodeName(idx, n));
  }

  /** Names of the outputs: `<node>_<output>` (`fc1_output`), variables by name. */
  listOutputs(): string[] {
    return this.outputs.map(outputName);
  }

  /** Names of the auxiliary states: variables some op writes (BatchNorm's moving statistics). */
  listAuxiliaryStates(): string[] {
    const idx = new IndexedGraph(this.outputs);
    return idx.inputNodes.filter((n) => idx.mutableInputNodes.has(n)).map((n) => this.#nodeName(idx, n));
  }

  /** Names of every variable, arguments and auxiliary states, in graph order. */
  listInputs(): string[] {
    const idx = new IndexedGraph(this.outputs);
    return idx.inputNodes.map((n) => this.#nodeName(idx, n));
  }

  // ---- attributes -----------------------------------------------------------------------------

  /**
   * One attribute of the (single) head node; `name` and `op_name` are answered too, and a hidden
   * key may be asked for without underscores (`attr('lr_mult')`). Undefined when absent or grouped.
   */
  attr(key: string): string | undefined {
    const node = this.#singleNode();
    if (node === undefined) return undefined;
    if (key === 'name') return node.name;
    if (key === 'op_name') return node.op?.name ?? 'null';
    const v = node.attrs[key];
    if (v !== undefined) return v;
    return isReplacedHiddenKey(`__${key}__`) ? node.attrs[`__${key}__`] : undefined;
  }

  /** The head node's attributes; hidden keys also without underscores (MXNet `list_attr`). */
  listAttr(): Record<string, string> {
    const head = this.outputs[0];
    return head === undefined ? {} : withPlainHiddenKeys(head.node.attrs);
  }

  /** The attributes of every node that has some, by node name (MXNet `attr_dict`). */
  attrDict(): Record<string, Record<string, string>> {
    const out: Record<string, Record<string, string>> = {};
    for (const n of postOrderNodes(this.outputs)) {
      if (Object.keys(n.attrs).length === 0) continue;
      out[n.name] = { ...(out[n.name] ?? {}), ...withPlainHiddenKeys(n.attrs) };
    }
    return out;
  }

  /**
   * Set attributes of the head node in place (MXNet `_set_attr`): string values; hidden keys are
   * stored as `__key__`; `name` renames the node; op parameters are checked first, so a bad value
   * changes nothing.
   */
  setAttr(attrs: Readonly<Record<string, string>>): this {
    checkStringAttrs(attrs, 'setAttr');
    const node = this.#singleNode();
    if (node === undefined) {
      throw new MXNetError('setAttr only works for a symbol with a single head node, not a group', {
        op: 'Symbol.setAttr',
        hint: 'set attributes on each member: group.get(i).setAttr(...)',
      });
    }
    const changes = Object.entries(attrs).map(([k, v]) => [k === 'name' ? k : setAttrKey(k, v), v] as const);
    if (node.op !== null) {
      const next: Record<string, string> = {};
      for (const [k, v] of Object.entries(node.attrs)) if (!isHidden(k)) next[k] = v;
      for (const [k, v] of changes) if (k !== 'name' && !isHidden(k)) next[k] = v;
      try {
        node.op.parseParams(next);
      } catch (e) {
        if (!(e instanceof MXNetError)) throw e;
        throw new MXNetError(`node ${node.name}: ${e.reason}`, {
          op: node.op.name,
          params: attrs,
          hint: e.hint,
          cause: e,
        });
      }
    }
    for (const [k, v] of changes) {
      if (k === 'name') node.name = v;
      else node.setAttr(k, v);
    }
    return this;
  }

  // ---- copies and composition -----------------------------------------------------------------

  /** A deep copy: new nodes for the whole graph (MXNet `__copy__`). */
  copy(): Symbol {
    return new Symbol(this.api, copyGraph(this.outputs, this.api.versions));
  }

  /**
   * A copy with variables replaced by name (MXNet `sym(fc3_data=net1, name='composed')`): every
   * key must name a variable of this symbol, every value must be a single-output Symbol; `name`
   * renames the head node of the copy.
   */
  compose(inputs: Readonly<Record<string, Symbol | string | undefined>>): Symbol {
    const given = new Map<string, NodeEntry>();
    let name: string | undefined;
    for (const [k, v] of Object.entries(inputs)) {
      if (v === undefined) continue;
      if (k === 'name' && typeof v === 'string') {
        name = v;
        continue;
      }
      if (!(v instanceof Symbol)) {
        throw new MXNetError(`compose expects Symbols as inputs; ${k} is ${typeof v}`, {
          op: 'Symbol.compose',
          hint: 'pass { varName: symbol }',
        });
      }
      if (v.outputs.length !== 1) {
        throw new MXNetError(
          `keyword argument ${k} is a symbol with ${v.outputs.length} outputs; one is required`,
          {
            op: 'Symbol.compose',
            hint: `pick one: ${k}: s.get(0)`,
          },
        );
      }
      given.set(k, v.outputs[0] as NodeEntry);
    }
    const inputNames = new Set(this.listInputs());
    const missing = [...given.keys()].filter((k) => !inputNames.has(k));
    if (missing.length > 0) {
      throw new MXNetError(`Symbol.compose: keyword argument name ${missing.join(', ')} not found`, {
        op: 'Symbol.compose',
        hint: `the variables of this symbol are ${[...inputNames].join(', ')}`,
      });
    }
    const outputs = copyGraph(this.outputs, this.api.versions, (v) => given.get(v.name));
    const head = outputs[0];
    // MXNet renames the copy's head before replacing variables: a replaced head keeps its name.
    const oldHead = this.outputs[0]?.node;
    if (name !== undefined && head !== undefined && !(oldHead?.op === null && given.has(oldHead.name))) {
      head.node.name = name;
    }
    return new Symbol(this.api, outputs);
  }

  /** Alias of {@link Symbol.compose} (MXNet's `sym(...)`). */
  call(inputs: Readonly<Record<string, Symbol | string | undefined>>): Symbol {
    return this.compose(inputs);
  }

  // ---- arithmetic (MXNet's operators on symbols: same-shape ops, no broadcasting) -------------

  #binary(other: Symbol | number, sym: string, scalar: string, what: string): Symbol {
    if (other instanceof Symbol) return this.api.invoke(sym, this, other);
    if (typeof other === 'number') return this.api.invoke(scalar, this, { scalar: other });
    throw new MXNetError(`${what}: type ${typeof other} not supported`, {
      op: what,
      hint: 'use a Symbol or a number',
    });
  }

  /** `this + other` (`_Plus` / `_PlusScalar`). */
  add(other: Symbol | number): Symbol {
    return this.#binary(other, '_Plus', '_PlusScalar', 'add');
  }
  /** `this - other` (`_Minus` / `_MinusScalar`). */
  sub(other: Symbol | number): Symbol {
    return this.#binary(other, '_Minus', '_MinusScalar', 'sub');
  }
  /** `other - this` (`_RMinusScalar` for a number). */
  rsub(other: Symbol | number): Symbol {
    return other instanceof Symbol ? other.sub(this) : this.#binary(other, '_Minus', '_RMinusScalar', 'rsub');
  }
  /** `this * other` (`_Mul` / `_MulScalar`). */
  mul(other: Symbol | number): Symbol {
    return this.#binary(other, '_Mul', '_MulScalar', 'mul');
  }
  /** `this / other` (`_Div` / `_DivScalar`). */
  div(other: Symbol | number): Symbol {
    return this.#binary(other, '_Div', '_DivScalar', 'div');
  }
  /** `other / this` (`_RDivScalar` for a number). */
  rdiv(other: Symbol | number): Symbol {
    return other instanceof Symbol ? other.div(this) : this.#binary(other, '_Div', '_RDivScalar', 'rdiv');
  }
  /** `this % other` (`_Mod` / `_ModScalar`). */
  mod(other: Symbol | number): Symbol {
    return this.#binary(other, '_Mod', '_ModScalar', 'mod');
  }
  /** `other % this` (`_RModScalar` for a number). */
  rmod(other: Symbol | number): Symbol {
    return other instanceof Symbol ? other.mod(this) : this.#binary(other, '_Mod', '_RModScalar', 'rmod');
  }
  /** `this ** other` (`_Power` / `_PowerScalar`). */
  pow(other: Symbol | number): Symbol {
    return this.#binary(other, '_Power', '_PowerScalar', 'pow');
  }
  /** `other ** this` (`_rpower_scalar` for a number). */
  rpow(other: Symbol | number): Symbol {
    return other instanceof Symbol
      ? other.pow(this)
      : this.#binary(other, '_Power', '_rpower_scalar', 'rpow');
  }
  /** `-this`: MXNet's `this * -1.0` (`_MulScalar`, scalar `-1.0`). */
  neg(): Symbol {
    return this.api.invoke('_MulScalar', this, { scalar: pyFloat(-1) });
  }
  /** `this == other` elementwise (`_equal` / `_equal_scalar`). */
  eq(other: Symbol | number): Symbol {
    return this.#binary(other, '_equal', '_equal_scalar', 'eq');
  }
  /** `this != other` elementwise. */
  ne(other: Symbol | number): Symbol {
    return this.#binary(other, '_not_equal', '_not_equal_scalar', 'ne');
  }
  /** `this > other` elementwise. */
  gt(other: Symbol | number): Symbol {
    return this.#binary(other, '_greater', '_greater_scalar', 'gt');
  }
  /** `this >= other` elementwise. */
  ge(other: Symbol | number): Symbol {
    return this.#binary(other, '_greater_equal', '_greater_equal_scalar', 'ge');
  }
  /** `this < other` elementwise. */
  lt(other: Symbol | number): Symbol {
    return this.#binary(other, '_lesser', '_lesser_scalar', 'lt');
  }
  /** `this <= other` elementwise. */
  le(other: Symbol | number): Symbol {
    return this.#binary(other, '_lesser_equal', '_lesser_equal_scalar', 'le');
  }

  /** `reshape(this, { shape, ... })` (MXNet's fluent `Symbol.reshape`; MXNet's special codes 0, -1...). */
  reshape(shape: readonly number[], options: Readonly<Record<string, unknown>> = {}): Symbol {
    return this.api.invoke('reshape', this, { ...options, shape });
  }

  // ---- inference -------------------------------------------------------------------------------

  /**
   * Shapes of the arguments, outputs and auxiliary states from known input shapes (by name, or
   * positional over the arguments). All three are undefined when the graph is not fully known
   * (MXNet returns `(None, None, None)`, with a warning naming the arguments to provide); an
   * inconsistency throws an MXNetError naming the node.
   */
  inferShape(shapes?: ShapeInputs): InferShapeResult {
    return inferShapes(this.outputs, this.listArguments(), shapes, false, this.api.warn) as InferShapeResult;
  }

  /** Like {@link Symbol.inferShape}, but returns what is known: undefined shapes, -1 dimensions. */
  inferShapePartial(shapes?: ShapeInputs): InferShapePartialResult {
    return inferShapes(
      this.outputs,
      this.listArguments(),
      shapes,
      true,
      this.api.warn,
    ) as InferShapePartialResult;
  }

  /** Dtypes of the arguments, outputs and auxiliary states from known input dtypes. */
  inferType(dtypes?: TypeInputs): InferTypeResult {
    return inferTypes(this.outputs, this.listArguments(), dtypes, false, this.api.warn) as InferTypeResult;
  }

  /** Like {@link Symbol.inferType}, but returns what is known (undefined where unknown). */
  inferTypePartial(dtypes?: TypeInputs): InferTypePartialResult {
    return inferTypes(
      this.outputs,
      this.listArguments(),
      dtypes,
      true,
      this.api.warn,
    ) as InferTypePartialResult;
  }

  // ---- serialization and printing -------------------------------------------------------------

  /**
   * MXNet's symbol JSON (`tojson`), loadable by MXNet. Also what `JSON.stringify` embeds for a
   * symbol (as a string), since it calls `toJSON`.
   */
  toJSON(options?: SaveJSONOptions): string {
    return saveJSON(new Graph(this.outputs), typeof options === 'object' && options !== null ? options : {});
  }

  /** Write the JSON to a file (Node; MXNet `save`). */
  async save(path: string, options?: SaveJSONOptions): Promise<void> {
    await nodeFsPromises('Symbol.save').writeFile(path, this.toJSON(options));
  }

  /** MXNet's `debug_str`: outputs, then every variable and op with inputs and attributes. */
  debugStr(): string {
    const head = this.outputs[0];
    if (
      this.outputs.length === 1 &&
      head !== undefined &&
      head.node.inputs.length === 0 &&
      head.node.controlDeps.length === 0
    ) {
      return head.node.op === null
        ? `Variable:${head.node.name}\n`
        : `AtomicFunctor  Op:${head.node.op.name}\n`;
    }
    const lines = ['Symbol Outputs:'];
    for (const [i, e] of this.outputs.entries()) lines.push(`\toutput[${i}]=${e.node.name}(${e.index})`);
    for (const n of postOrderNodes(this.outputs)) {
      if (n.op === null) {
        lines.push(`Variable:${n.name}`);
        continue;
      }
      lines.push('--------------------', `Op:${n.op.name}, Name=${n.name}`, 'Inputs:');
      for (const [i, e] of n.inputs.entries()) {
        lines.push(
          `\targ[${i}]=${e.node.name}(${e.index})${e.node.op === null ? ` version=${e.version}` : ''}`,
        );
      }
      const keys = Object.keys(n.attrs).sort();
      if (keys.length > 0) lines.push('Attrs:', ...keys.map((k) => `\t${k}=${n.attrs[k]}`));
      if (n.controlDeps.length > 0)
        lines.push('Control deps:', ...n.controlDeps.map((c, i) => `\tcdep[${i}]=${c.name}`));
    }
    return `${lines.join('\n')}\n`;
  }

  /** `<Symbol fc1>`, or `<Symbol group [a, b]>` for a group (MXNet `__repr__`). */
  toString(): string {
    const name = this.name;
    if (name !== undefined) return `<Symbol ${name}>`;
    return `<Symbol group [${[...this].map((s) => s.name).join(', ')}]>`;
  }

  // ---- binding (delegated to the executor module) ---------------------------------------------

  /**
   * Infer shapes, allocate the arguments, gradients and auxiliary states, and bind an executor
   * (MXNet `simple_bind`). Needs a SymbolApi created from a Runtime.
   */
  simpleBind(options: SimpleBindOptions): Executor {
    return simpleBind(this.#runtime('simpleBind'), this, options);
  }

  /** Bind an executor to given arrays (MXNet `bind`). Needs a SymbolApi created from a Runtime. */
  bind(options: BindOptions): Executor {
    return bind(this.#runtime('bind'), this, options);
  }

  // ---- helpers --------------------------------------------------------------------------------

  #singleNode(): GraphNode | undefined {
    const node = this.outputs[0]?.node;
    if (node === undefined) return undefined;
    return this.outputs.every((e) => e.node === node) ? node : undefined;
  }

  #nodeName(idx: IndexedGraph, nid: number): string {
    return (idx.nodes[nid] as { node: GraphNode }).node.name;
  }

  #runtime(what: string): Runtime {
    const rt = this.api.runtime;
    if (rt === undefined) {
      throw new MXNetError(
        `${what} needs a Runtime, and this symbol's SymbolApi was created from an OpRegistry`,
        {
          op: `Symbol.${what}`,
          hint: 'create the API with new SymbolApi(runtime)',
        },
      );
    }
    return rt;
  }
}

const isHidden = (k: string) => k.length > 4 && k.startsWith('__') && k.endsWith('__');

function withPlainHiddenKeys(attrs: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(attrs)) {
    out[k] = v;
    if (isReplacedHiddenKey(k)) out[k.slice(2, -2)] = v;
  }
  return out;
}

interface FsPromises {
  writeFile(path: string, data: string): Promise<void>;
  readFile(path: string, encoding: 'utf8'): Promise<string>;
}

/** `node:fs/promises` without importing it (browser bundles never see fs). */
export function nodeFsPromises(op: string): FsPromises {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const fs = proc?.getBuiltinModule?.('node:fs') as { promises?: FsPromises } | undefined;
  if (fs?.promises === undefined) {
    throw new MXNetError('file paths need Node.js', {
      op,
      hint: 'use toJSON() / fromJSON(text) and your own storage',
    });
  }
  return fs.promises;
}
