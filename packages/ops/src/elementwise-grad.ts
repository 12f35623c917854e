/**
 * Gradients of SimpleOps, derived from their expressions (see gradient.ts for the why).
 *
 * For an op `f` with gradient expression `g_i` for input `i`, this defines `_backward_f` (one
 * differentiable input) or `_backward_f_<i>` (several): a SimpleOp whose inputs are `ograd`, the
 * forward inputs `g_i` reads (all of them when the op reads its inputs through `inputViews`) and,
 * when read, the forward output; its expression is `g_i` with those substituted. It runs at the
 * forward output's shape (the forward inputs broadcast into it), and a broadcasting op's gradient
 * then sums it down to the input's shape with `_broadcast_backward`.
 *
 * The generated ops' own gradients come from `diffExpr`, so they are generated lazily, on the first
 * request, never eagerly (that would recurse forever).
 */
import type { DTypeName } from '@mx/base';
import { E, type ElementwiseDef, type Expr, exprParams } from './expr.js';
import { diffExpr, exprUses, type GradientDef, type GradientSpec, substituteExpr } from './gradient.js';
import type { Op, OpDef } from './op-def.js';
import type { ParamSchema } from './params.js';

export interface BackwardOpPlan {
  readonly name: string;
  /** Forward inputs passed after ograd, in order. */
  readonly inputs: readonly number[];
  /** Whether the forward output is passed last. */
  readonly output: boolean;
  readonly def: OpDef;
}

/** Plan the backward op of input `i` of elementwise op `op` (null when its gradient is zero). */
export function planBackwardOp(op: Op, i: number, nIn: number): BackwardOpPlan | null {
  const ew = op.elementwise as ElementwiseDef;
  const g = ew.gradient?.[i];
  if (g === null || g === undefined) return null;
  const uses = exprUses(g);
  const inputs =
    ew.inputViews !== undefined
      ? Array.from({ length: nIn }, (_, k) => k)
      : [...uses.inputs].sort((a, b) => a - b);
  const pos = new Map(inputs.map((k, j) => [k, j + 1]));
  const outIndex = 1 + inputs.length;
  const forward = substituteExpr(g, {
    input: (k) => E.input(pos.get(k) as number),
    ograd: E.input(0),
    output: E.input(outIndex),
  });
  const n = outIndex + (uses.output ? 1 : 0);
  const params: Record<string, unknown> = {};
  for (const p of exprParams(forward)) {
    const spec = (op.params as ParamSchema)[p];
    if (spec !== undefined) params[p] = spec;
  }
  const gradient: (Expr | null)[] = [];
  let differentiable = true;
  for (let j = 0; j < n; j++) {
    const d = diffExpr(forward, j);
    if (d === null) {
      differentiable = false;
      break;
    }
    gradient.push(d.k === 'const' && d.value === 0 ? null : E.mul(E.ograd, d));
  }
  const fwdViews = ew.inputViews;
  const name = nIn === 1 ? `_backward_${op.name}` : `_backward_${op.name}_${i}`;
  const def: OpDef = {
    name,
    doc: `gradient of ${op.name} with respect to input ${i} (generated from its expression)`,
    params: params as ParamSchema,
    numInputs: n,
    listInputNames: ['ograd', ...inputs.map((k) => `in${k}`), ...(uses.output ? ['output'] : [])],
    isBackward: true,
    // The result has the forward output's shape: the shape of ograd (input 0).
    inferShape: (_attrs, inS, outS) => {
      const s = inS[0] ?? outS[0];
      if (s === undefined) return false;
      outS[0] = [...s];
      inS[0] = [...s];
      return inS.every((x) => x !== undefined);
    },
    inferType: (_attrs, inT, outT) => {
      const t: DTypeName | undefined = inT[0] ?? outT[0];
      if (t === undefined) return false;
      outT[0] = t;
      inT[0] = t;
      return inT.every((x) => x !== undefined);
    },
    elementwise: {
      forward,
      ...(differentiable ? { gradient } : {}),
      broadcast: ew.broadcast === true || fwdViews !== undefined,
      ...(fwdViews !== undefined
        ? {
            inputViews: (shapes, out) => {
              const fwdShapes = shapes.slice(1, 1 + nIn);
              const views = fwdViews(fwdShapes, out);
              return [out, ...views, ...(uses.output ? [out] : [])];
            },
          }
        : {}),
    },
  };
  return { name, inputs, output: uses.output, def };
}

/**
 * The gradient of an elementwise op from its expressions: `ensureOp(plan)` defines (or finds) each
 * backward op; returns undefined when the op declares no gradient expressions.
 */
export function elementwiseGradient(
  op: Op,
  nIn: number,
  ensureOp: (plan: BackwardOpPlan) => void,
): GradientSpec | undefined {
  const ew = op.elementwise;
  if (ew?.gradient === undefined) return undefined;
  const plans: (BackwardOpPlan | null)[] = [];
  for (let i = 0; i < nIn; i++) {
    const plan = planBackwardOp(op, i, nIn);
    if (plan !== null) ensureOp(plan);
    plans.push(plan);
  }
  if (plans.every((p) => p === null)) return 'zero';
  const broadcast = ew.broadcast === true;
  const inputsNeeded = new Set<number>();
  let outputNeeded = false;
  plans.forEach((p, i) => {
    if (p === null) return;
    for (const k of p.inputs) inputsNeeded.add(k);
    if (p.output) outputNeeded = true;
    if (broadcast) inputsNeeded.add(i);
  });
  const def: GradientDef = {
    inputs: [...inputsNeeded].sort((a, b) => a - b),
    outputs: outputNeeded ? [0] : 'none',
    build: (g, attrs) =>
      plans.map((p, i) => {
        if (p === null) return null;
        const args = [g.ograd(0), ...p.inputs.map((k) => g.input(k)), ...(p.output ? [g.output(0)] : [])];
        const params: Record<string, unknown> = {};
        for (const name of Object.keys((p.def.params ?? {}) as object))
          params[name] = (attrs as Record<string, unknown>)[name];
        const grad = g.op1(p.name, args, params);
        return broadcast ? g.op1('_broadcast_backward', [grad, g.input(i)]) : grad;
      }),
  };
  return def;
}
