/**
 * Renders, from an operator registry, the two generated files (scripts/gen-ops.ts writes them, the
 * drift test in core-ops.test.ts re-renders and compares):
 * - src/core-ops.ts: for every core op a params interface (MXNet's field names, TypeScript types
 *   from each field's `tsType`, MXNet's docs and defaults as doc comments) and, for every op name
 *   and alias, a typed member of `nd` with the op's doc, its inputs and its outputs (op-shapes.ts);
 * - docs/operators.md: every op with its aliases, inputs, parameters and kernels.
 * Pure: text in, text out, so the test can check the committed files without writing them.
 */
import { docComment, escapeDoc, IDENT, INVOKE_KEYS, identifier, pascal } from '@mx/codegen-kit';
import type { Backend, Op, OpRegistry, ParamSpec } from '@mx/ops';
import { analyzeOp, type Choice, type OpShape, type OutputsShape, type Signature } from './op-shapes.js';

/** A typed value as TypeScript source (defaults in doc comments, literal types). */
function literal(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  if (Array.isArray(v)) return `[${v.map(literal).join(', ')}]`;
  if (typeof v === 'number' && !Number.isFinite(v))
    return Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';
  return String(v);
}

function choiceType(values: readonly Choice[]): string {
  const both = values.includes(false) && values.includes(true);
  const rest = both ? values.filter((v) => typeof v !== 'boolean') : values;
  return [...(both ? ['boolean'] : []), ...rest.map(literal)].join(' | ');
}

/** The fields a params interface declares (the invoke options are separate). */
function fieldsOf(op: Op): [string, ParamSpec<unknown>][] {
  return Object.entries(op.params).filter(([k]) => !INVOKE_KEYS.has(k));
}

/** The fields of an op's params type (shared by ops with the same schema, e.g. an op and its backward). */
function renderFields(op: Op): string {
  const countKey = op.def.keyVarNumArgs;
  const fields = fieldsOf(op).map(([key, spec]) => {
    const paras = [escapeDoc(spec.doc || `${key} (MXNet type ${spec.typeName}).`)];
    if (key === countKey) paras.push('Filled in with the number of input arrays when omitted.');
    if (!spec.required) paras.push(`@defaultValue \`${literal(spec.default)}\``);
    const optional = !spec.required || key === countKey;
    return `${docComment('  ', paras)}  readonly ${key}${optional ? '?' : ''}: ${spec.tsType};\n`;
  });
  return `{\n${fields.join('\n')}}`;
}

/** `export type <iface> = {...}`, or an alias of an earlier type with exactly the same fields. */
function renderParams(op: Op, iface: string, seen: Map<string, string>): string {
  const fields = renderFields(op);
  const skipped = Object.keys(op.params).filter((k) => INVOKE_KEYS.has(k));
  const head = [`Params of \`${op.name}\` (MXNet's names; omitted fields take the defaults shown).`];
  if (skipped.length > 0)
    head.push(`\`${skipped.join('`, `')}\` is passed as the call option of the same name (OpInvokeOptions).`);
  const same = seen.get(fields);
  if (same !== undefined)
    return `${docComment('', [...head, `The same fields as {@link ${same}}.`])}export type ${iface} = ${same};\n`;
  seen.set(fields, iface);
  // A type alias rather than an interface: assignable to `Record<string, unknown>` (nd.invoke).
  return `${docComment('', head)}export type ${iface} = ${fields};\n`;
}

/** The return type; `a` is `NDArray<D>` for ops whose outputs have their inputs' dtype. */
function returnType(o: OutputsShape, a: string): string {
  if (o.kind === 'dynamic') return `${a} | ${a}[]`;
  if (o.kind === 'param') return a === 'NDArray' ? 'OpOutputs<N>' : 'OpOutputs<N, D>';
  return o.counts.map((c) => (c === 1 ? a : `[${Array(c).fill(a).join(', ')}]`)).join(' | ');
}

function countText(o: OutputsShape): string {
  if (o.kind === 'dynamic') return 'one array or several, depending on the params (`NDArray | NDArray[]`)';
  if (o.kind === 'param') return `\`${o.key}\` arrays (one NDArray when it is 1)`;
  return o.counts.map((c) => (c === 1 ? 'one array' : `${c} arrays`)).join(' or ');
}

interface RenderedSignature {
  readonly doc: string[];
  readonly text: string;
}

function renderSignatures(op: Op, iface: string | undefined, shape: OpShape): RenderedSignature[] {
  const out: RenderedSignature[] = [];
  const last = shape.signatures.length - 1;
  shape.signatures.forEach((sig: Signature, i) => {
    const parts: string[] = [];
    if (iface !== undefined) parts.push(iface);
    // The registry's default type inference: every input and output has one dtype.
    const sameDType = op.def.inferType === undefined && (sig.inputs === 'variadic' || sig.inputs.length > 0);
    const array = sameDType ? 'NDArray<D>' : 'NDArray';
    const typeParamList = sameDType ? ['D extends DTypeName = DTypeName'] : [];
    let needsParams = shape.paramsRequired;
    const conds: string[] = [];
    for (const [key, values] of sig.when) {
      const dflt = op.params[key]?.default ?? null;
      const optional = !sig.catchAll && values.includes(dflt as Choice);
      if (!optional) needsParams = true;
      conds.push(`readonly ${key}${optional ? '?' : ''}: ${choiceType(values)}`);
    }
    if (sig.outputs.kind === 'param') {
      const spec = op.params[sig.outputs.key];
      const optional = spec !== undefined && !spec.required;
      // N first: it may have no default, and D always has one.
      typeParamList.unshift(`N extends number${optional ? ` = ${literal(spec?.default)}` : ''}`);
      conds.push(`readonly ${sig.outputs.key}${optional ? '?' : ''}: N`);
    }
    if (conds.length > 0) parts.push(`{ ${conds.join('; ')} }`);
    parts.push('OpInvokeOptions');
    const paramsType = parts.join(' & ');
    const typeParams = typeParamList.length > 0 ? `<${typeParamList.join(', ')}>` : '';
    const ret = returnType(sig.outputs, array);
    const doc: string[] = [];
    if (sig.inputs === 'variadic') {
      const count = op.def.keyVarNumArgs;
      const sample = shape.sampleInputs ? ` (for example \`${shape.sampleInputs.join('`, `')}\`)` : '';
      doc.push(
        `Inputs: any number of arrays${sample}${count ? `; \`${count}\` is filled in with their count` : ''}.`,
      );
    } else doc.push(sig.inputs.length > 0 ? `Inputs: \`${sig.inputs.join('`, `')}\`.` : 'No inputs.');
    if (sig.catchAll) {
      const keys = [...sig.when.keys()].map((k) => `\`${k}\``).join(', ');
      doc.push(`This overload: ${keys} given as values that are not literals.`);
    } else if (sig.when.size > 0) {
      const w = [...sig.when].map(([k, vs]) => `\`${k}\` ${vs.length === 1 ? 'is' : 'in'} ${choiceType(vs)}`);
      doc.push(`This overload: ${w.join(', ')}.`);
    }
    doc.push(`Returns ${countText(sig.outputs)}.`);
    if (shape.note !== undefined && i === last) doc.push(`Note: ${shape.note}.`);
    const name = (taken: Set<string>) => identifier('params', taken);
    if (sig.inputs === 'variadic') {
      const taken = new Set<string>(['arrays']);
      const p = name(taken);
      out.push({ doc, text: `${typeParams}(...args: [...arrays: ${array}[], ${p}: ${paramsType}]): ${ret}` });
      if (!needsParams) out.push({ doc, text: `${typeParams}(...arrays: ${array}[]): ${ret}` });
    } else {
      const taken = new Set<string>();
      const args = sig.inputs.map((n) => `${identifier(n, taken)}: ${array}`);
      const p = name(taken);
      args.push(`${p}${needsParams ? '' : '?'}: ${paramsType}`);
      out.push({ doc, text: `${typeParams}(${args.join(', ')}): ${ret}` });
    }
  });
  return out;
}

export interface RenderedOps {
  /** The text of src/core-ops.ts (before formatting). */
  readonly coreOps: string;
  /** Ops whose declaration is approximate, with why. */
  readonly notes: readonly string[];
}

/** src/core-ops.ts for the names of `registry` that are identifiers. */
export function renderCoreOps(registry: OpRegistry): RenderedOps {
  const ifaces = new Map<Op, string>();
  const taken = new Set<string>();
  const blocks: string[] = [];
  const notes: string[] = [];
  const shapes = new Map<Op, OpShape>();
  const seenFields = new Map<string, string>();
  for (const op of registry.list()) {
    const shape = analyzeOp(op);
    shapes.set(op, shape);
    if (shape.note !== undefined) notes.push(`${op.name}: ${shape.note}`);
    if (fieldsOf(op).length === 0) continue;
    let iface = `${pascal(op.name)}Params`;
    while (taken.has(iface)) iface = `${iface}_`;
    taken.add(iface);
    ifaces.set(op, iface);
    blocks.push(renderParams(op, iface, seenFields));
  }
  // Each op is declared once, under its name (or its first alias that is an identifier); the other
  // names are properties of the same type, so signature help shows the same overloads and docs.
  const members: string[] = [];
  const primary = (op: Op) => [op.name, ...op.aliases].find((n) => IDENT.test(n));
  for (const name of registry.names().filter((n) => IDENT.test(n))) {
    const op = registry.get(name);
    const main = primary(op) as string;
    if (name !== main) {
      const doc = docComment('  ', [`Alias of \`${main}\`: ${escapeDoc(op.doc)}`]);
      members.push(`${doc}  readonly ${name}: CoreOps['${main}'];\n`);
      continue;
    }
    for (const s of renderSignatures(op, ifaces.get(op), shapes.get(op) as OpShape)) {
      members.push(`${docComment('  ', [escapeDoc(op.doc), ...s.doc])}  ${name}${s.text};\n`);
    }
  }
  const usesDType = [...blocks, ...members].some((b) => b.includes('DTypeName'));
  const coreOps = `/**
 * Typed members of \`nd\` for every core operator name and alias, and the params interface of every
 * core operator (generated by scripts/gen-ops.ts from the registry: do not edit; a test fails when
 * this file is stale). Field names are MXNet's; types come from each field's schema; inputs and
 * output counts from probing the op (src/codegen/op-shapes.ts). Ops registered later (third-party
 * packages) are reached through the index signature of \`Nd\`.
 */
${usesDType ? "import type { DTypeName } from '@mx/base';\n" : ''}import type { OpInvokeOptions, OpOutputs } from './nd.js';
import type { NDArray } from './ndarray.js';

${blocks.join('\n')}
/** The core operators as members of \`nd\` (MXNet's \`mx.nd.<op>\`). */
export interface CoreOps {
${members.join('\n')}}
`;
  return { coreOps, notes };
}

const mdEscape = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** docs/operators.md: every op with aliases, inputs, params and the backends that run it. */
export function renderOperatorsDoc(registry: OpRegistry, backends: readonly Backend[]): string {
  const rows: string[] = [];
  for (const op of registry.list()) {
    let attrs: Record<string, unknown> = {};
    try {
      attrs = op.parseParams({}) as Record<string, unknown>;
    } catch {
      attrs = {};
    }
    let inputs = '';
    try {
      inputs = op.listInputNames(attrs as never).join(', ');
    } catch {
      inputs = '(variadic)';
    }
    const params = Object.entries(op.params)
      .map(([k, s]) => `\`${k}\`: ${mdEscape(s.info())}`)
      .join('<br>');
    const kernels = backends.map((b) => (registry.kernel(op, b.name) ? b.name : `${b.name}: —`)).join(', ');
    rows.push(
      `| \`${op.name}\` | ${op.aliases.map((a) => `\`${a}\``).join(', ')} | ${mdEscape(inputs)} | ${params} | ${kernels} |`,
    );
  }
  return `# Operators

Generated from the operator registry by \`packages/ndarray/scripts/gen-ops.ts\` (do not edit).
${registry.list().length} operators, ${registry.names().length} names with aliases. Kernels: a backend name
means the op runs there (elementwise ops through the backend's SimpleOp compiler); compute dtypes
are the backend's (${backends.map((b) => `${b.name}: ${b.capabilities.computeDTypes.join(', ')}`).join('; ')}) unless
the op says otherwise; pure data movement (reshape, slicing, concat, copies) also handles the
storage-only dtypes. The TypeScript signature of each op (\`nd.<op>\`, its params interface) is in
the API reference (\`pnpm run docs\`), generated from the same registry.

| Operator | Aliases | Inputs | Parameters | Kernels |
|---|---|---|---|---|
${rows.join('\n')}
`;
}
