/**
 * MXNet's symbol upgraders (`src/nnvm/legacy_json_util.cc`) and the np-shape conversion
 * (`ConvertShapeAttrToNumPyCompatible` in `c_api_symbolic.cc`).
 *
 * They run on a mutable working copy of the file's nodes (`WorkNode`) before any `GraphNode` is
 * built, because a GraphNode parses its attributes once, at creation: the upgraders are exactly
 * what makes old attributes parse. Each upgrader is MXNet's, in MXNet's order, and runs when the
 * file is older than the version it is keyed by. Everything a malicious file could make large
 * (input-name lists, added variables) is bounded by the size of the text.
 */
import { fromLegacyShape, MXNetError, parseShape } from '@mx/base';
import type { Attrs, Op } from '@mx/ops';
import { HIDDEN_KEYS, isHiddenKey } from '../node.js';
import { MXNET_JSON_VERSION } from './types.js';

/** An input of a working node. */
export interface WorkEntry {
  readonly node: WorkNode;
  readonly index: number;
  readonly version: number;
}

/** A node being loaded: the file's node with its op resolved and attributes still editable. */
export interface WorkNode {
  /** Index in the file; -1 for a variable an upgrader added. */
  readonly id: number;
  readonly op: Op | null;
  readonly name: string;
  readonly attrs: Map<string, string>;
  readonly inputs: WorkEntry[];
  readonly controlDeps: readonly WorkNode[];
}

/** What the upgraders need from the loader: node-named errors and the allocation bound. */
export interface UpgradeContext {
  /** An MXNetError naming the file and the node. */
  readonly fail: (node: WorkNode, message: string, hint?: string, cause?: unknown) => Error;
  /** Upper bound for anything the file makes us allocate (its length in characters). */
  readonly limit: number;
}

/** The op's parameters from a node's dictionary (hidden keys skipped), errors naming the node. */
export function parseWorkParams(node: WorkNode, ctx: UpgradeContext, attrs = node.attrs): Attrs {
  const op = node.op as Op;
  const params = Object.fromEntries([...attrs].filter(([k]) => !isHiddenKey(k)));
  try {
    return op.parseParams(params);
  } catch (e) {
    if (e instanceof MXNetError) throw ctx.fail(node, e.reason, e.hint, e);
    throw e;
  }
}

/** The op's input count for these parameters, refused when it exceeds what the file could hold. */
export function boundedInputCount(node: WorkNode, parsed: Attrs, ctx: UpgradeContext): number {
  const n = (node.op as Op).numInputs(parsed);
  if (!Number.isInteger(n) || n < 0 || n > ctx.limit) {
    throw ctx.fail(
      node,
      `declares ${n} inputs, more than a file of ${ctx.limit} characters can hold`,
      'check the parameter that sets the number of inputs (num_args)',
    );
  }
  return n;
}

/** Argument names (`FListInputNames`), bounded like `boundedInputCount`. */
function inputNames(node: WorkNode, parsed: Attrs, ctx: UpgradeContext): readonly string[] {
  boundedInputCount(node, parsed, ctx);
  return (node.op as Op).listInputNames(parsed);
}

/** rfind-based test of `UpgradeJSON_FixParsing`: the key is, starts with, or ends with a hidden key. */
function isLegacyHiddenKey(key: string): boolean {
  for (const k of HIDDEN_KEYS) {
    const pos = key.lastIndexOf(k);
    if (pos === 0 || (pos !== -1 && pos === key.length - k.length)) return true;
  }
  return false;
}

/** `<arg>_<key>` form: the position of the hidden key when it ends `key` after at least 2 chars. */
function suffixPosition(key: string, k: string): number {
  const pos = key.lastIndexOf(k);
  return pos > 1 && pos === key.length - k.length ? pos : -1;
}

/**
 * `UpgradeJSON_FixParsing`: bare hidden keys (`lr_mult`) become `__lr_mult__` on the node;
 * `<arg>_<key>` on an op (`weight_lr_mult`) becomes `__lr_mult__` on the variable feeding input
 * `<arg>` (by the op's input names). Keys that match neither stay as they were.
 */
function fixParsing(nodes: readonly WorkNode[], ctx: UpgradeContext): void {
  for (const node of nodes) {
    const hidden: [string, string][] = [];
    for (const [key, value] of node.attrs) if (isLegacyHiddenKey(key)) hidden.push([key, value]);
    if (hidden.length === 0) continue;
    for (const [key] of hidden) node.attrs.delete(key);
    const needNames =
      node.op !== null && hidden.some(([key]) => HIDDEN_KEYS.some((k) => suffixPosition(key, k) >= 0));
    const names = needNames ? inputNames(node, parseWorkParams(node, ctx), ctx) : [];
    for (const [key, value] of hidden) {
      let placed = false;
      for (const k of HIDDEN_KEYS) {
        if (key === k) {
          node.attrs.set(`__${k}__`, value);
          placed = true;
          break;
        }
        const pos = suffixPosition(key, k);
        if (pos >= 0) {
          if (node.op !== null) {
            const idx = names.indexOf(key.slice(0, pos - 1));
            const input = idx >= 0 ? node.inputs[idx] : undefined;
            if (input !== undefined && input.node.op === null) {
              input.node.attrs.set(`__${k}__`, value);
              placed = true;
            }
          }
          break;
        }
      }
      if (!placed) node.attrs.set(key, value);
    }
  }
}

/** `DefaultVarName`: `<node>_<arg>`, or the argument name for an unnamed node. */
function defaultVarName(nodeName: string, argName: string): string {
  return nodeName.length === 0 ? argName : `${nodeName}_${argName}`;
}

/**
 * `UpgradeJSON_000800_000900`: files before 0.9.0 did not list aux states. Missing trailing inputs
 * become variables `<node>_<arg>` carrying a copy of the node's attributes.
 */
function addMissingInputs(nodes: readonly WorkNode[], ctx: UpgradeContext): void {
  let added = 0;
  for (const node of nodes) {
    if (node.op === null) continue;
    const parsed = parseWorkParams(node, ctx);
    const n = boundedInputCount(node, parsed, ctx);
    if (node.inputs.length >= n) continue;
    added += n - node.inputs.length;
    if (added > ctx.limit) {
      throw ctx.fail(node, `would need ${added} added inputs, more than the file's size allows`);
    }
    const names = node.op.listInputNames(parsed);
    for (let i = node.inputs.length; i < n; i++) {
      const variable: WorkNode = {
        id: -1,
        op: null,
        name: defaultVarName(node.name, names[i] ?? `arg${i}`),
        attrs: new Map(node.attrs),
        inputs: [],
        controlDeps: [],
      };
      node.inputs.push({ node: variable, index: 0, version: 0 });
    }
  }
}

/**
 * Initializers MXNet's `FSetInputVarAttrOnCompose` gives input variables (the ops' `inputVarInit`);
 * `UpgradeJSON_000903_000904` applies them to files before 0.9.4.
 */

function setInputVarInit(nodes: readonly WorkNode[]): void {
  for (const node of nodes) {
    const inits = node.op?.def.inputVarInit;
    if (inits === undefined) continue;
    node.inputs.forEach((e, i) => {
      const init = inits[i];
      if (init !== undefined && e.node.op === null && !e.node.attrs.has('__init__')) {
        e.node.attrs.set('__init__', init);
      }
    });
  }
}

/** `UpgradeJSON_000904_000905`: argmax/argmin's axis became optional; `axis="-1"` meant "none". */
function dropArgAxis(nodes: readonly WorkNode[]): void {
  for (const node of nodes) {
    const name = node.op?.name;
    if ((name === 'argmax' || name === 'argmin') && node.attrs.get('axis') === '-1')
      node.attrs.delete('axis');
  }
}

/**
 * Run MXNet's upgraders for a file of `version` on the reachable nodes (file order, producers
 * first). `UpgradeJSON_Parse` is the loader's GraphNode creation, which always happens.
 */
export function upgradeLegacy(nodes: readonly WorkNode[], version: number, ctx: UpgradeContext): void {
  if (version < MXNET_JSON_VERSION) fixParsing(nodes, ctx);
  if (version < 900) addMissingInputs(nodes, ctx);
  if (version < 904) setInputVarInit(nodes);
  if (version < 905) dropArgAxis(nodes);
}

/**
 * One `__shape__` value in NumPy semantics, written as MXNet's TShape prints it: legacy 0 dims
 * become -1 (`(8, 0)` → `[8,-1]`), a legacy empty shape means unknown (`None`). A value that does
 * not parse as a shape is left alone.
 */
export function toNumpyShapeAttr(text: string): string {
  if (text.trim() === 'None') return 'None';
  let dims: number[];
  try {
    dims = parseShape(text);
  } catch {
    return text;
  }
  const np = fromLegacyShape(dims);
  return np === undefined ? 'None' : `[${np.join(',')}]`;
}

/** `ConvertShapeAttrToNumPyCompatible`: every variable's `__shape__` to NumPy semantics. */
export function convertShapesToNumpy(nodes: Iterable<WorkNode>): void {
  for (const node of nodes) {
    const shape = node.op === null ? node.attrs.get('__shape__') : undefined;
    if (shape !== undefined) node.attrs.set('__shape__', toNumpyShapeAttr(shape));
  }
}
