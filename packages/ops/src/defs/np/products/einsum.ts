/**
 * `_npi_einsum` and `_backward_npi_einsum` (MXNet 2.0 src/operator/numpy/np_einsum_op.cc).
 *
 * Params as MXNet's `NumpyEinsumParam`: `num_args` (operand count, MXNet's key_var_num_args),
 * `subscripts` (NumPy's string) and `optimize` (int; 0 = one contraction over every operand as
 * NumPy's C einsum does, non-zero = MXNet's greedy `einsum_path`; 2 asks for NumPy's 'optimal'
 * search, which MXNet does not have). Inputs are `arg0..`, as MXNet names them.
 *
 * Deliberately different from MXNet: mixed operand dtypes are promoted as NumPy does
 * (`resultType`), where MXNet's `ElemwiseType` refuses them; the gradient of each operand has
 * that operand's dtype.
 *
 * The gradient is MXNet's: one `_backward_npi_einsum(ograd, arg0..)` node whose outputs are
 * every operand's gradient. Each is itself an einsum — of the output gradient with the other
 * operands, onto the operand's labels — then spread onto the operand's axes: zero off a diagonal
 * (repeated label), constant along labels only that operand has and the output drops, summed
 * over dims it broadcast from length 1. {@link einsumGradient} says how, for the kernels.
 */
import { type DTypeName, resultType, type Shape } from '@mx/base';
import type { ShapeSlots, TypeSlots } from '../../../op-def.js';
import { P } from '../../../params.js';
import type { OpRegistry } from '../../../registry.js';
import { assignShape, known } from '../../linalg/shape-util.js';
import { type EinsumProblem, parseEinsum } from '../einsum-parse.js';
import type { EinsumOptimize, PlanOperand } from '../einsum-path.js';

const einsumParams = {
  num_args: P.int({ lowerBound: 1, doc: 'Number of input arrays.' }),
  subscripts: P.string({
    default: '',
    doc: "Specifies the subscripts for summation as comma separated list of subscript labels. An implicit (classical Einstein summation) calculation is performed unless the explicit indicator '->' is included as well as subscript labels of the precise output form.",
  }),
  optimize: P.int({
    default: 0,
    doc: "0: contract every operand at once (NumPy's optimize=False); non-zero: pairwise in the order of einsum_path's greedy search; 2: its 'optimal' search.",
  }),
};

/** `_npi_einsum`'s parsed params. */
export interface EinsumAttrs {
  readonly num_args: number;
  readonly subscripts: string;
  readonly optimize: number;
}

/** The path search an `optimize` param value asks for. */
export function einsumOptimize(optimize: number): EinsumOptimize {
  return optimize === 0 ? false : optimize === 2 ? 'optimal' : 'greedy';
}

const argNames = (n: number) => Array.from({ length: n }, (_, i) => `arg${i}`);

/** One term of a gradient's einsum: the output gradient (-1) or operand `operand`, with its labels. */
export interface GradTerm {
  readonly operand: number;
  readonly labels: readonly number[];
}

/** How operand `i`'s gradient is computed: an einsum onto `target`, then spread (see the file comment). */
export interface EinsumGradient {
  /** The einsum's terms: the output gradient first, then the other operands. */
  readonly terms: readonly GradTerm[];
  /** The einsum's output labels: the operand's distinct labels that some term has and that it does not broadcast. */
  readonly target: readonly number[];
  /**
   * True when the einsum's result is the gradient as it is (the operand's axes are `target` in
   * order); false when it must be spread onto the operand's axes.
   */
  readonly direct: boolean;
  /**
   * For the spread: the operand's distinct labels it does not broadcast, in axis order, each with
   * its axes (several on a diagonal) and whether the einsum's result has it (false: constant along it).
   */
  readonly spread: readonly {
    readonly label: number;
    readonly axes: readonly number[];
    readonly inTarget: boolean;
  }[];
}

/** Operand `i`'s gradient (pure; see {@link EinsumGradient}). `shapes`: the forward operands'. */
export function einsumGradient(p: EinsumProblem, shapes: readonly Shape[], i: number): EinsumGradient {
  const own = p.inputs[i] as readonly number[];
  const shape = shapes[i] as Shape;
  const terms: GradTerm[] = [{ operand: -1, labels: p.output }];
  p.inputs.forEach((labels, j) => {
    if (j !== i) terms.push({ operand: j, labels });
  });
  const elsewhere = new Set(terms.flatMap((t) => t.labels));
  const spread: { label: number; axes: number[]; inTarget: boolean }[] = [];
  own.forEach((label, ax) => {
    // A dim of 1 under a longer label broadcast in the forward: its gradient is summed (not spread).
    if ((shape[ax] as number) === 1 && (p.sizes[label] as number) !== 1) return;
    const s = spread.find((x) => x.label === label);
    if (s) s.axes.push(ax);
    else spread.push({ label, axes: [ax], inTarget: elsewhere.has(label) });
  });
  const target = spread.filter((s) => s.inTarget).map((s) => s.label);
  const direct = target.length === own.length && target.every((l, ax) => own[ax] === l);
  return { terms, target, direct, spread };
}

/** The planner's view of parsed operands (labels and dims per axis). */
export function planOperands(p: EinsumProblem, shapes: readonly Shape[]): PlanOperand[] {
  return p.inputs.map((labels, i) => ({ labels, dims: shapes[i] as Shape }));
}

function inferEinsum(a: EinsumAttrs, inShapes: ShapeSlots, outShapes: ShapeSlots): boolean {
  if (inShapes.length !== a.num_args || inShapes.some((s) => s === undefined)) return false;
  const p = parseEinsum(a.subscripts, inShapes as Shape[]);
  assignShape('_npi_einsum', outShapes, 0, p.outShape, 'output');
  return known(outShapes[0]);
}

function promoted(types: TypeSlots): DTypeName | undefined {
  if (types.some((t) => t === undefined)) return undefined;
  return resultType(types as DTypeName[]);
}

export function registerEinsum(registry: OpRegistry): void {
  registry.define({
    name: '_npi_einsum',
    doc: "Evaluates the Einstein summation convention on the operands (NumPy's einsum), with NumPy's subscripts: explicit ('ij,jk->ik'), implicit ('ij,jk'), '...' broadcasting and repeated subscripts (diagonals, traces).",
    params: einsumParams,
    numInputs: (a) => a.num_args,
    keyVarNumArgs: 'num_args',
    listInputNames: (a) => argNames(a.num_args),
    inferShape: inferEinsum,
    inferType: (_a, inTypes, outTypes) => {
      const t = promoted(inTypes);
      if (t === undefined) return false;
      outTypes[0] = t;
      return true;
    },
    resourceRequest: () => ['tempSpace'],
    gradient: {
      inputs: 'all',
      build: (g, a) =>
        g.op(
          '_backward_npi_einsum',
          [g.ograd(0), ...Array.from({ length: a.num_args }, (_, i) => g.input(i))],
          { num_args: a.num_args, subscripts: a.subscripts, optimize: a.optimize },
        ),
    },
  });
  registry.define({
    name: '_backward_npi_einsum',
    doc: "Gradient of _npi_einsum: every operand's gradient from (ograd, arg0..), each an einsum of ograd with the other operands.",
    params: einsumParams,
    numInputs: (a) => a.num_args + 1,
    numOutputs: (a) => a.num_args,
    listInputNames: (a) => ['ograd', ...argNames(a.num_args)],
    listOutputNames: (a) => argNames(a.num_args).map((n) => `${n}_grad`),
    isBackward: true,
    resourceRequest: () => ['tempSpace'],
    inferShape: (a, inShapes, outShapes) => {
      const ops = inShapes.slice(1);
      if (ops.length !== a.num_args || ops.some((s) => s === undefined)) return false;
      const p = parseEinsum(a.subscripts, ops as Shape[]);
      assignShape('_backward_npi_einsum', inShapes, 0, p.outShape, 'ograd');
      ops.forEach((s, i) => {
        assignShape('_backward_npi_einsum', outShapes, i, s as Shape, 'output');
      });
      return known(inShapes[0]) && outShapes.every((s) => known(s));
    },
    inferType: (_a, inTypes, outTypes) => {
      const ops = inTypes.slice(1);
      ops.forEach((t, i) => {
        if (t !== undefined) outTypes[i] = t;
      });
      const t = promoted(ops);
      if (t !== undefined && inTypes[0] === undefined) inTypes[0] = t;
      return inTypes.every((x) => x !== undefined) && outTypes.every((x) => x !== undefined);
    },
  });
}
