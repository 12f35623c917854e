/**
 * `sym.<Op>(...)`: one op node from a call (MXNet's generated `mx.sym.<op>` functions,
 * `_symbol_creator` and nnvm's atomic `Symbol::Compose`, in one step).
 *
 * Calling convention: input Symbols by position and/or by argument name in the trailing options
 * object (`sym.FullyConnected(data, { num_hidden: 10 })` or `sym.FullyConnected({ data,
 * num_hidden: 10 })`); every other option is an op parameter, plus `name`, `attr` and MXNet's
 * hidden keys (`lr_mult`, `ctx_group`...). Variadic ops (`key_var_num_args`) take their inputs by
 * position or as one array and get `num_args` filled in. Inputs left out become new variables
 * `<name>_<arg>` carrying the node's attributes (fc1_weight, bn0_moving_mean), exactly what nnvm
 * does; BatchNorm and LeakyReLU also give their state variables an `__init__`
 * (FSetInputVarAttrOnCompose). Parameters are stored as MXNet's Python `str()` of the value, only
 * those given.
 */
import { MXNetError } from '@mx/base';
import { entry, GraphNode, type NodeEntry, parseNodeAttrs } from '@mx/graph';
import type { Attrs, Op } from '@mx/ops';
import { describeValue, opAttrKey, pyStr } from './attrs.js';
import type { VariableVersions } from './graph-copy.js';
import type { AttrScope, NameManager } from './scope.js';
// biome-ignore lint/suspicious/noShadowRestrictedNames: MXNet's class name (mx.sym.Symbol)
import { Symbol } from './symbol.js';

/** What op creation needs from the SymbolApi. */
export interface CreateContext {
  readonly nameManager: NameManager;
  readonly attrScope: AttrScope;
  readonly versions: VariableVersions;
  /** Wrap output entries into a Symbol of this API. */
  symbol(outputs: readonly NodeEntry[]): Symbol;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Symbol);

/** Split `args` into positional inputs and the options object. */
function splitArgs(opName: string, args: readonly unknown[]): [unknown[], Record<string, unknown>] {
  let positional = [...args];
  let options: Record<string, unknown> = {};
  const last = positional[positional.length - 1];
  if (positional.length > 0 && (isPlainObject(last) || last === undefined)) {
    options = (last as Record<string, unknown> | undefined) ?? {};
    positional = positional.slice(0, -1);
  }
  if (positional.length === 1 && Array.isArray(positional[0])) positional = [...positional[0]];
  positional.forEach((s, i) => {
    if (!(s instanceof Symbol)) {
      throw new MXNetError(`input ${i} of ${opName} is ${describeValue(s)}; inputs must be Symbols`, {
        op: opName,
        hint:
          typeof s === 'number' || typeof s === 'string'
            ? 'parameters go in the trailing options object: sym.Op(data, { param: value })'
            : 'create inputs with sym.var(name) or take them from other ops',
      });
    }
  });
  return [positional, options];
}

function singleOutput(op: Op, name: string, arg: string, s: Symbol): NodeEntry {
  if (s.outputs.length !== 1) {
    throw new MXNetError(
      `input ${arg} of ${name} is a symbol with ${s.outputs.length} outputs (${s.listOutputs().join(', ')}); one output is required`,
      { op: op.name, hint: `pick one output: s.get(0) or s.get('${s.listOutputs()[0] ?? ''}')` },
    );
  }
  return s.outputs[0] as NodeEntry;
}

/** The op's argument names for these params (`arg0..` when the op's list disagrees with its count). */
function inputNames(op: Op, attrs: Attrs): readonly string[] {
  const n = op.numInputs(attrs);
  const names = op.listInputNames(attrs);
  return names.length === n ? names : Array.from({ length: n }, (_, i) => `arg${i}`);
}

/** Create one op node from a `sym.<op>(...)` call and return its visible outputs as a Symbol. */
export function createOpSymbol(
  ctx: CreateContext,
  op: Op,
  calledAs: string,
  args: readonly unknown[],
): Symbol {
  const [positional, options] = splitArgs(calledAs, args);
  const named = new Map<string, Symbol>();
  const kwargs: Record<string, unknown> = {};
  let userName: string | undefined;
  let userAttr: Record<string, string> | undefined;
  for (const [k, v] of Object.entries(options)) {
    if (v === undefined) continue;
    if (k === 'name') {
      if (typeof v !== 'string') {
        throw new MXNetError(`name must be a string, not ${describeValue(v)}`, {
          op: op.name,
          hint: "name: 'fc1'",
        });
      }
      userName = v;
    } else if (k === 'attr') {
      if (!isPlainObject(v)) {
        throw new MXNetError(`attr must be an object of strings, not ${describeValue(v)}`, { op: op.name });
      }
      userAttr = v as Record<string, string>;
    } else if (v instanceof Symbol) named.set(k, v);
    else if (Array.isArray(v) && v.some((x) => x instanceof Symbol)) {
      throw new MXNetError(`option ${k} of ${calledAs} is an array of Symbols; an input takes one Symbol`, {
        op: op.name,
        hint: 'pass the inputs of a variadic op by position: sym.Concat([a, b], { dim: 1 })',
      });
    } else kwargs[k] = v;
  }
  const countKey = op.def.keyVarNumArgs;
  if (countKey !== undefined && positional.length > 0 && named.size > 0) {
    throw new MXNetError(
      `${calledAs} takes a variable number of inputs: pass them either by position or by name, not both`,
      {
        op: op.name,
        hint: `got ${positional.length} by position and ${[...named.keys()].join(', ')} by name`,
      },
    );
  }
  // Attribute scope, then the call's `attr` (MXNet: kwargs.update(AttrScope.current.get(attr))).
  Object.assign(kwargs, ctx.attrScope.get(userAttr));
  if (countKey !== undefined && !(countKey in kwargs)) kwargs[countKey] = positional.length + named.size;
  const attrs: Record<string, string> = {};
  for (const [k, v] of Object.entries(kwargs)) {
    const value = pyStr(v);
    attrs[opAttrKey(k, value)] = value;
  }
  const name = ctx.nameManager.get(userName, calledAs.toLowerCase());
  const parsed = parseNodeAttrs(op, name, attrs);
  const names = inputNames(op, parsed);
  if (positional.length > names.length) {
    throw new MXNetError(
      `${name} (${op.name}) takes ${names.length} input(s) (${names.join(', ') || 'none'}); got ${positional.length}`,
      {
        op: op.name,
        params: attrs,
        hint: 'remove the extra inputs or change the parameters that set the inputs',
      },
    );
  }
  const inputs: (NodeEntry | undefined)[] = names.map((_, i) =>
    i < positional.length ? singleOutput(op, name, names[i] as string, positional[i] as Symbol) : undefined,
  );
  for (const [k, s] of named) {
    const i = names.indexOf(k);
    if (i < 0) {
      const rest = names.slice(positional.length);
      throw new MXNetError(`${op.name} has no input named ${k} (node ${name})`, {
        op: op.name,
        params: attrs,
        hint: `its inputs are ${names.join(', ')}${rest.length < names.length ? ` (the first ${positional.length} given by position)` : ''}`,
      });
    }
    if (i < positional.length) {
      throw new MXNetError(`input ${k} of ${name} is given twice: by position and by name`, {
        op: op.name,
        hint: `drop ${k} from the options or from the positional inputs`,
      });
    }
    inputs[i] = singleOutput(op, name, k, s);
  }
  const entries = inputs.map((e, i) => {
    if (e !== undefined) return e;
    // nnvm: a new variable <name>_<arg> with a copy of the node's attributes.
    return entry(GraphNode.variable(`${name}_${names[i]}`, attrs));
  });
  // nnvm UpdateNodeVersion: reads see the variable's version, writes bump it (committed below,
  // once the node exists, so a failed call changes nothing).
  const mutated = new Set(op.mutateInputs(parsed));
  const finalEntries = entries.map((e, i) => {
    if (e.node.op !== null) {
      if (mutated.has(i)) {
        throw new MXNetError(
          `input ${names[i]} of ${name} is written by ${op.name}, so it must be a variable`,
          {
            op: op.name,
            hint: `pass sym.var('${name}_${names[i]}') (an auxiliary state), not the output of ${e.node.name}`,
          },
        );
      }
      return e;
    }
    return entry(e.node, e.index, ctx.versions.of(e.node) + (mutated.has(i) ? 1 : 0));
  });
  const node = GraphNode.create(op, name, attrs, finalEntries);
  for (const i of mutated) {
    const e = finalEntries[i] as NodeEntry;
    ctx.versions.atLeast(e.node, e.version);
  }
  const init = op.def.inputVarInit;
  if (init !== undefined) {
    finalEntries.forEach((e, i) => {
      const value = init[i];
      if (value !== undefined && e.node.op === null && e.node.attrs.__init__ === undefined) {
        e.node.setAttr('__init__', value);
      }
    });
  }
  const visible = node.numVisibleOutputs();
  return ctx.symbol(Array.from({ length: visible }, (_, i) => entry(node, i, 0)));
}
