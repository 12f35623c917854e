/**
 * What the TypeScript declaration of an operator needs to know that the registry only states as
 * functions of the params: which inputs it takes and how many outputs it shows, for which params.
 *
 * Counts and input names are functions of the parsed params (`numInputs`, `listInputNames`,
 * `numVisibleOutputs`), so they are found by probing: a base params object (every required field
 * given a valid sample), then each field varied over a few values — every choice of a boolean, enum
 * or dtype field; small ints; tuples of 1–3 items. A field with a finite set of choices that
 * changes the inputs or outputs gives overloads keyed on its literal values (`no_bias: true` drops
 * FullyConnected's `bias`; `output_mean_var: true` makes BatchNorm return three arrays). An int
 * field whose value *is* the output count (`num_outputs`) gives a generic overload
 * (`OpOutputs<N>`). Anything else that changes the inputs makes them variadic; anything else that
 * changes the outputs makes the result `NDArray | NDArray[]`. Used by the declaration generator
 * (op-decls.ts); pure, no I/O.
 */
import { INVOKE_KEYS, parses, sampleParams } from '@mx/codegen-kit';
import type { Op, ParamSpec } from '@mx/ops';

export type Choice = string | boolean | null;

/** Visible outputs of one signature. */
export type OutputsShape =
  /** One of these counts (one count: always that many). */
  | { readonly kind: 'fixed'; readonly counts: readonly number[] }
  /** The count is the value of this int param. */
  | { readonly kind: 'param'; readonly key: string }
  | { readonly kind: 'dynamic' };

/** One overload: the inputs, the literal values it requires of some params, what it returns. */
export interface Signature {
  /** Input names, or 'variadic' (any number of arrays). */
  readonly inputs: readonly string[] | 'variadic';
  /** Params restricted to these literal values for this overload (empty: any). */
  readonly when: ReadonlyMap<string, readonly Choice[]>;
  readonly outputs: OutputsShape;
  /**
   * The last overload of a literal-keyed set: `when` lists the keys with all their values, which it
   * requires to be given (non-literal values land here; leaving a key out picks the defaults' one).
   */
  readonly catchAll?: boolean;
}

export interface OpShape {
  /** Overloads, most specific first; the last one accepts any params. */
  readonly signatures: readonly Signature[];
  /** Input names shown in docs for a variadic op (for a sample count), else undefined. */
  readonly sampleInputs: readonly string[] | undefined;
  /** True when params must be passed (a required field other than the variadic count). */
  readonly paramsRequired: boolean;
  /** Why the shape is only approximate (printed by the generator), if it is. */
  readonly note: string | undefined;
}

interface Probe {
  readonly inputs: readonly string[];
  readonly outputs: number;
}

const isInt = (s: ParamSpec<unknown>) => s.typeName === 'int' || s.typeName === 'int or None';
const isTuple = (s: ParamSpec<unknown>) => s.tsType.includes('readonly ');

/** Values tried for a field when looking for what changes the signature. */
function probeValues(spec: ParamSpec<unknown>): readonly unknown[] {
  if (spec.choices !== undefined) return spec.choices;
  if (isInt(spec)) return [0, 1, 2, 3, 4];
  if (isTuple(spec)) return [[1], [1, 1], [1, 1, 1]];
  return [];
}

function probe(op: Op, params: Record<string, unknown>): Probe | undefined {
  try {
    const attrs = op.parseParams(params);
    const n = op.numInputs(attrs);
    let names = op.listInputNames(attrs);
    if (names.length !== n) names = Array.from({ length: n }, (_, i) => `arg${i}`);
    return { inputs: names, outputs: op.numVisibleOutputs(attrs) };
  } catch {
    return undefined;
  }
}

const sameInputs = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((x, i) => x === b[i]);

const FALLBACK = (paramsRequired: boolean, note: string): OpShape => ({
  signatures: [{ inputs: 'variadic', when: new Map(), outputs: { kind: 'dynamic' } }],
  sampleInputs: undefined,
  paramsRequired,
  note,
});

/** Most combinations of choice values tried before giving up on literal overloads. */
const MAX_COMBOS = 512;

export function analyzeOp(op: Op): OpShape {
  const specs = Object.entries(op.params).filter(([k]) => !INVOKE_KEYS.has(k));
  const countKey = op.def.keyVarNumArgs;
  const paramsRequired = specs.some(([k, s]) => s.required && k !== countKey);
  const base = sampleParams(op);
  const baseProbe = base && probe(op, base);
  if (base === undefined || baseProbe === undefined)
    return FALLBACK(paramsRequired, 'no valid sample params: inputs variadic, outputs NDArray | NDArray[]');

  // Which fields change the inputs or the output count.
  let variadic = countKey !== undefined;
  /** Choice fields that change the signature, and whether they change the outputs. */
  const choiceKeys = new Map<string, boolean>();
  const otherOutputKeys: string[] = [];
  let sampleInputs: readonly string[] | undefined;
  for (const [key, spec] of specs) {
    const probes = probeValues(spec)
      .filter((v) => parses(spec, v, key))
      .map((v) => [v, probe(op, { ...base, [key]: v })] as const);
    const changesInputs = probes.some(([, p]) => p !== undefined && !sameInputs(p.inputs, baseProbe.inputs));
    const changesOutputs = probes.some(([, p]) => p !== undefined && p.outputs !== baseProbe.outputs);
    if (!changesInputs && !changesOutputs) continue;
    if (spec.choices !== undefined) choiceKeys.set(key, changesOutputs);
    else {
      if (changesInputs) {
        variadic = true;
        sampleInputs ??= probes.find(([v]) => v === 2)?.[1]?.inputs;
      }
      if (changesOutputs) otherOutputKeys.push(key);
    }
  }
  if (countKey !== undefined) sampleInputs ??= probe(op, { ...base, [countKey]: 2 })?.inputs;

  // An int field whose value is the output count.
  let paramOutputs: OutputsShape | undefined;
  const countField = otherOutputKeys.length === 1 ? (otherOutputKeys[0] as string) : undefined;
  const countSpec = countField === undefined ? undefined : op.params[countField];
  if (countField !== undefined && countSpec !== undefined && isInt(countSpec)) {
    const checked = [1, 2, 3, 4].filter((v) => parses(countSpec, v, countField));
    const identity =
      checked.length >= 2 && checked.every((v) => probe(op, { ...base, [countField]: v })?.outputs === v);
    if (identity) paramOutputs = { kind: 'param', key: countField };
  }
  const outputsFixed = otherOutputKeys.length === 0;
  const outputsOf = (p: Probe): OutputsShape =>
    paramOutputs ?? (outputsFixed ? { kind: 'fixed', counts: [p.outputs] } : { kind: 'dynamic' });
  const note =
    !outputsFixed && paramOutputs === undefined
      ? `outputs depend on ${otherOutputKeys.join(', ')}: NDArray | NDArray[]`
      : undefined;

  // Literal overloads over the choice fields that matter.
  // (Variadic inputs already take any arrays: only choices that change a fixed output count matter.)
  const keys = [...choiceKeys].filter(([, outs]) => !variadic || (outs && outputsFixed)).map(([k]) => k);
  const combos = keys.reduce(
    (acc, k) => acc.flatMap((c) => (op.params[k]?.choices ?? []).map((v) => ({ ...c, [k]: v }))),
    [{}] as Record<string, Choice>[],
  );
  if (keys.length === 0 || combos.length > MAX_COMBOS) {
    return {
      signatures: [
        { inputs: variadic ? 'variadic' : baseProbe.inputs, when: new Map(), outputs: outputsOf(baseProbe) },
      ],
      sampleInputs,
      paramsRequired,
      note: combos.length > MAX_COMBOS ? `${combos.length} choice combinations: one signature` : note,
    };
  }
  const groups = new Map<string, { probe: Probe; combos: Record<string, Choice>[] }>();
  for (const combo of combos) {
    const p = probe(op, { ...base, ...combo });
    if (p === undefined) continue;
    const id = JSON.stringify([variadic ? [] : p.inputs, paramOutputs ?? (outputsFixed ? p.outputs : 0)]);
    const g = groups.get(id);
    if (g) g.combos.push(combo);
    else groups.set(id, { probe: p, combos: [combo] });
  }
  const signatures: Signature[] = [];
  let exact = true;
  for (const g of groups.values()) {
    const when = new Map<string, Choice[]>();
    let product = 1;
    for (const k of keys) {
      const values = [...new Set(g.combos.map((c) => c[k] as Choice))];
      product *= values.length;
      if (values.length < (op.params[k]?.choices?.length ?? 0)) when.set(k, values);
    }
    if (product !== g.combos.length) exact = false;
    signatures.push({
      inputs: variadic ? 'variadic' : g.probe.inputs,
      when,
      outputs: outputsOf(g.probe),
    });
  }
  if (signatures.length <= 1 || !exact) {
    const sameIn = [...groups.values()].every((g) => sameInputs(g.probe.inputs, baseProbe.inputs));
    const counts = new Set([...groups.values()].map((g) => g.probe.outputs));
    return {
      signatures: [
        {
          inputs: variadic || !sameIn ? 'variadic' : baseProbe.inputs,
          when: new Map(),
          outputs:
            counts.size === 1 || !outputsFixed
              ? outputsOf(baseProbe)
              : { kind: 'fixed', counts: [...counts] },
        },
      ],
      sampleInputs,
      paramsRequired,
      note: exact ? note : `choices of ${keys.join(', ')} do not factor: one signature`,
    };
  }
  // The defaults' overload first, then the other literal ones, then one accepting any params.
  const isDefault = (s: Signature) =>
    [...s.when].every(([k, vs]) => vs.includes((op.params[k]?.default ?? null) as Choice));
  signatures.sort((a, b) => Number(isDefault(b)) - Number(isDefault(a)));
  const allInputs = signatures.map((s) => s.inputs);
  const first = allInputs[0] as Signature['inputs'];
  const sameIn = allInputs.every(
    (i) => i === first || (i !== 'variadic' && first !== 'variadic' && sameInputs(i, first)),
  );
  const counts = [
    ...new Set(signatures.flatMap((s) => (s.outputs.kind === 'fixed' ? s.outputs.counts : []))),
  ];
  signatures.push({
    inputs: sameIn ? first : 'variadic',
    when: new Map(keys.map((k) => [k, op.params[k]?.choices ?? []])),
    catchAll: true,
    outputs: outputsFixed ? { kind: 'fixed', counts } : (signatures[0] as Signature).outputs,
  });
  return { signatures, sampleInputs, paramsRequired, note };
}
