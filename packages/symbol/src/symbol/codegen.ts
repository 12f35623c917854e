/**
 * Renders src/symbol/sym-ops.ts — the typed members of `sym` for every operator name and alias —
 * from a registry (scripts/gen-sym-ops.ts writes it; sym-ops.test.ts re-renders and compares).
 *
 * The params types are @mx/ndarray's generated ones (`FullyConnectedParams`...), named by the same
 * rule (`<PascalName>Params`, a `_` appended on a clash, in registry order, for ops with params
 * other than `out`/`ctx`/`req`): `nd.<Op>` and `sym.<Op>` take the same params with the same docs,
 * and a renamed type fails this package's typecheck. What is symbol-specific is worked out here by
 * probing each op (as @mx/ndarray's op-shapes.ts does for arrays): its argument names over the
 * values of its boolean/enum params (FullyConnected: data, weight, bias — bias only without
 * `no_bias`, which the run-time check enforces), and whether its input count follows a number
 * (variadic). Pure: text in, text out.
 */
import {
  docComment,
  escapeDoc,
  IDENT,
  INVOKE_KEYS,
  identifier,
  parses,
  pascal,
  sampleParams,
} from '@mx/codegen-kit';
import type { Op, OpRegistry } from '@mx/ops';
import { API_MEMBERS } from './reserved.js';

/** The op's argument names for `params`, or undefined when they do not parse. */
function probe(op: Op, params: Record<string, unknown>): readonly string[] | undefined {
  try {
    const attrs = op.parseParams(params);
    const n = op.numInputs(attrs);
    const names = op.listInputNames(attrs);
    return names.length === n ? names : Array.from({ length: n }, (_, i) => `arg${i}`);
  } catch {
    return undefined;
  }
}

/** What a `sym.<op>` declaration needs: argument names (all that can occur) or variadic. */
export interface SymShape {
  readonly inputs: readonly string[] | 'variadic';
  /** True when params must be passed (a required field other than the variadic count). */
  readonly paramsRequired: boolean;
}

export function analyzeSymOp(op: Op): SymShape {
  const countKey = op.def.keyVarNumArgs;
  const paramsRequired = Object.entries(op.params).some(
    ([k, s]) => s.required && k !== countKey && !INVOKE_KEYS.has(k),
  );
  const base = sampleParams(op);
  const baseNames = base && probe(op, base);
  if (countKey !== undefined || base === undefined || baseNames === undefined) {
    return { inputs: 'variadic', paramsRequired };
  }
  const lists: (readonly string[])[] = [baseNames];
  for (const [key, spec] of Object.entries(op.params)) {
    if (spec.choices !== undefined) {
      for (const v of spec.choices) {
        const names = probe(op, { ...base, [key]: v });
        if (names !== undefined) lists.push(names);
      }
      continue;
    }
    const isInt = spec.typeName === 'int' || spec.typeName === 'int or None';
    const values = isInt
      ? [0, 1, 2, 3, 4]
      : spec.tsType.includes('readonly ')
        ? [[1], [1, 1], [1, 1, 1]]
        : [];
    for (const v of values) {
      const names = parses(spec, v, key) ? probe(op, { ...base, [key]: v }) : undefined;
      if (names !== undefined && names.length !== baseNames.length)
        return { inputs: 'variadic', paramsRequired };
    }
  }
  // Every name that occurs, the longest list's order first.
  const union = [...lists.reduce((a, b) => (b.length > a.length ? b : a))];
  for (const l of lists) for (const n of l) if (!union.includes(n)) union.push(n);
  return { inputs: union, paramsRequired };
}

/** @mx/ndarray's params type name of each op that has one. */
function paramsTypeNames(registry: OpRegistry): Map<Op, string> {
  const out = new Map<Op, string>();
  const taken = new Set<string>();
  for (const op of registry.list()) {
    if (!Object.keys(op.params).some((k) => !INVOKE_KEYS.has(k))) continue;
    let name = `${pascal(op.name)}Params`;
    while (taken.has(name)) name = `${name}_`;
    taken.add(name);
    out.set(op, name);
  }
  return out;
}

function renderSignature(op: Op, params: string, shape: SymShape): { doc: string; text: string } {
  const q = shape.paramsRequired ? '' : '?';
  if (shape.inputs === 'variadic') {
    const count = op.def.keyVarNumArgs;
    const options = `SymOptions<${params}>`;
    const forms = [
      `[...inputs: Symbol[], params: ${options}]`,
      `[inputs: readonly Symbol[], params${q}: ${options}]`,
      ...(shape.paramsRequired ? [] : ['Symbol[]']),
    ];
    return {
      doc: `Inputs: any number of Symbols, by position or as one array${count ? `; \`${count}\` is set to their count` : ''}.`,
      text: `(...args: ${forms.map((f) => `\n | ${f}`).join('')}): Symbol`,
    };
  }
  const names = shape.inputs;
  if (names.length === 0) return { doc: 'No inputs.', text: `(params${q}: SymOptions<${params}>): Symbol` };
  const taken = new Set<string>(['params']);
  const ids = names.map((n) => identifier(n, taken));
  const forms = names.map((_, k) => {
    const rest = names.slice(k);
    const options = `SymOptions<${params}, ${rest.map((n) => `'${n}'`).join(' | ')}>`;
    return `[${[...ids.slice(0, k).map((id) => `${id}: Symbol`), `params${q}: ${options}`].join(', ')}]`;
  });
  forms.push(`[${[...ids.map((id) => `${id}: Symbol`), `params${q}: SymOptions<${params}>`].join(', ')}]`);
  return {
    doc: `Inputs: \`${names.join('`, `')}\`, by position or by name; those left out become variables \`<name>_<input>\`.`,
    text: `(...args: ${forms.map((f) => `\n | ${f}`).join('')}): Symbol`,
  };
}

/** The text of src/symbol/sym-ops.ts (before formatting) for the identifier names of `registry`. */
export function renderSymOps(registry: OpRegistry): string {
  const typeNames = paramsTypeNames(registry);
  const used = new Set<string>();
  const members: string[] = [];
  const usable = (n: string) => IDENT.test(n) && !API_MEMBERS.has(n);
  const primary = (op: Op) => [op.name, ...op.aliases].find(usable);
  for (const name of registry.names().filter(usable)) {
    const op = registry.get(name);
    const main = primary(op) as string;
    if (name !== main) {
      members.push(
        `${docComment('  ', [`Alias of \`${main}\`: ${escapeDoc(op.doc)}`])}  readonly ${name}: SymOps['${main}'];\n`,
      );
      continue;
    }
    const typeName = typeNames.get(op);
    if (typeName !== undefined) used.add(typeName);
    let params = typeName ?? '{}';
    if ('ctx' in op.params) params = `${params} & { readonly ctx?: string }`;
    const sig = renderSignature(op, params, analyzeSymOp(op));
    const doc = docComment('  ', [escapeDoc(op.doc || `The ${op.name} operator.`), sig.doc]);
    members.push(`${doc}  ${name}${sig.text};\n`);
  }
  // Biome's import order (case-insensitive), so the generated file passes `biome check` as is.
  const key = (t: string) => t.toLowerCase();
  const imports = [...used].sort((x, y) => (key(x) < key(y) ? -1 : key(x) > key(y) ? 1 : x < y ? -1 : 1));
  return `/**
 * Typed members of \`sym\` for every core operator name and alias (generated by
 * scripts/gen-sym-ops.ts from the registry: do not edit; a test fails when this file is stale).
 * Params types are @mx/ndarray's (the same as \`nd.<op>\`); inputs come by position or by name in the
 * options (src/symbol/codegen.ts). Ops registered later are reached with \`sym.invoke(name, ...)\`.
 */
import type {
${imports.map((t) => `  ${t},`).join('\n')}
} from '@mx/ndarray';
import type { SymOptions } from './sym-types.js';
// biome-ignore lint/suspicious/noShadowRestrictedNames: MXNet's class name (mx.sym.Symbol)
import type { Symbol } from './symbol.js';

/** The core operators as members of \`sym\` (MXNet's \`mx.sym.<op>\`). */
export interface SymOps {
${members.join('\n')}}
`;
}
