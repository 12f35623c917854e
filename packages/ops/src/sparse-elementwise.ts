/**
 * MXNet's storage-type rules for the elementwise family (`FInferStorageType` + dispatch mode:
 * `ElemwiseStorageAttr`, `ElemwiseBinaryOp::PreferDenseStorageType` / `PreferSparseStorageType` /
 * `SparseSparseWithDenseResult`, `BinaryScalarStorageType`, ...), written once as data.
 *
 * MXNet's functions decide two things per call: the output storage type, and whether the op's own
 * sparse kernel runs (`kFComputeEx`, or `kFCompute` on densified inputs, neither logged) or the
 * logged storage fallback does (`kFComputeFallback`). Here an op def declares its rule with
 * `inferStorageType: storageInference(RULE)`; the function that returns carries the rule, so a
 * backend reads it from the op (`sparseElementwiseRule(op)`) and serves exactly the signatures
 * MXNet serves (`computeExStorage`) — the op definitions and the kernels cannot disagree, and no
 * table of op names is kept. The rules assume what their ops guarantee: a rule keeping a sparse
 * input's storage (`SAME_STORAGE` on a unary op) is only given to ops with f(0) = 0.
 */
import type { Op, StorageType } from './op-def.js';
import type { Attrs } from './types.js';

/** What MXNet does with one storage signature: the output storage type, and who computes it. */
export interface SparseDispatch {
  /** Storage type of every output. */
  readonly stype: StorageType;
  /**
   * True when the op's sparse kernel serves the signature (MXNet `kFComputeEx`, or `kFCompute` over
   * densified inputs without a log); false for the logged storage fallback.
   */
  readonly computeEx: boolean;
}

/** An elementwise op's storage rule (one of MXNet's storage inference functions). */
export interface SparseElementwiseRule<A extends Attrs = Attrs> {
  /** MXNet's function, for messages and docs (e.g. `PreferDenseStorageType`). */
  readonly name: string;
  /** The dispatch for these input storage types (unknown inputs are offered as `default`). */
  readonly dispatch: (attrs: A, inTypes: readonly StorageType[]) => SparseDispatch;
}

/** An `OpDef.inferStorageType` built from a rule, carrying the rule for backends. */
export type StorageInference<A extends Attrs = Attrs> = ((
  attrs: A,
  inTypes: StorageType[],
  outTypes: StorageType[],
) => boolean) & { readonly sparseRule: SparseElementwiseRule<A> };

const FALLBACK: SparseDispatch = Object.freeze({ stype: 'default', computeEx: false });
const DENSE: SparseDispatch = Object.freeze({ stype: 'default', computeEx: true });
const RSP: SparseDispatch = Object.freeze({ stype: 'row_sparse', computeEx: true });
const CSR: SparseDispatch = Object.freeze({ stype: 'csr', computeEx: true });

const only = (types: readonly StorageType[], t: StorageType): boolean => types.every((x) => x === t);
const sparseOf = (t: StorageType | undefined): SparseDispatch | undefined =>
  t === 'row_sparse' ? RSP : t === 'csr' ? CSR : undefined;

/** The dense result of a pair with exactly one dense side and the other `other`. */
function denseWith(types: readonly StorageType[], other: StorageType): boolean {
  const [a, b] = types;
  return (a === 'default' && b === other) || (a === other && b === 'default');
}

/**
 * MXNet `ElemwiseStorageAttr<cpu_only, rsp, csr>` (`ElemwiseStorageType<n_in, n_out, ...>`): all
 * dense → dense; all row_sparse → row_sparse (when `rsp`); all CSR → CSR (when `csr`); three inputs
 * (dense, csr, dense) → dense; more than four inputs with a dense one → dense; anything else falls
 * back to dense.
 */
export function elemwiseStorageRule(rsp: boolean, csr: boolean): SparseElementwiseRule {
  return Object.freeze({
    name: `ElemwiseStorageType<rsp=${rsp}, csr=${csr}>`,
    dispatch: (_attrs: Attrs, t: readonly StorageType[]): SparseDispatch => {
      if (only(t, 'default')) return DENSE;
      if (rsp && only(t, 'row_sparse')) return RSP;
      if (csr && only(t, 'csr')) return CSR;
      if (t.length === 3 && t[0] === 'default' && t[1] === 'csr' && t[2] === 'default') return DENSE;
      if (t.length > 4 && t.includes('default')) return DENSE;
      return FALLBACK;
    },
  });
}

/**
 * Unary ops MXNet registers `..._WITH_RSP_CSR` (f(0) = 0: relu, abs, sqrt, sin, ...), `_copy`,
 * `BlockGrad`, `_grad_add`: the output keeps the inputs' common storage type.
 */
export const SAME_STORAGE: SparseElementwiseRule = elemwiseStorageRule(true, true);

/** `add_n` / `ElementWiseSum` (MXNet `ElemwiseStorageAttr<false, true, false>`): row_sparse only. */
export const ADD_N_STORAGE: SparseElementwiseRule = elemwiseStorageRule(true, false);

/**
 * `elemwise_add` / `elemwise_sub` (MXNet `PreferDenseStorageType<true, true, true>`): rsp ⊕ rsp →
 * rsp, csr ⊕ csr → csr, a dense side makes the result dense (computed by the sparse kernel); csr
 * with rsp falls back.
 */
export const PREFER_DENSE: SparseElementwiseRule = Object.freeze({
  name: 'PreferDenseStorageType',
  dispatch: (_attrs: Attrs, t: readonly StorageType[]): SparseDispatch => {
    if (only(t, 'default')) return DENSE;
    if (only(t, 'row_sparse')) return RSP;
    if (only(t, 'csr')) return CSR;
    if (denseWith(t, 'csr') || denseWith(t, 'row_sparse')) return DENSE;
    return FALLBACK;
  },
});

/**
 * `elemwise_mul` (MXNet `PreferSparseStorageType`): rsp · rsp and rsp · dense → rsp, csr · csr and
 * csr · dense → csr (the dense side is read where the sparse one has values); csr with rsp falls
 * back.
 */
export const PREFER_SPARSE: SparseElementwiseRule = Object.freeze({
  name: 'PreferSparseStorageType',
  dispatch: (_attrs: Attrs, t: readonly StorageType[]): SparseDispatch => {
    if (only(t, 'default')) return DENSE;
    if (only(t, 'row_sparse') || denseWith(t, 'row_sparse')) return RSP;
    if (only(t, 'csr') || denseWith(t, 'csr')) return CSR;
    return FALLBACK;
  },
});

/**
 * `elemwise_div` (MXNet `SparseSparseWithDenseResult`): always dense; with a dense input MXNet
 * computes it on densified inputs without a log, rsp / rsp through its sparse kernel, and csr / csr
 * or mixed sparse inputs fall back.
 */
export const DENSE_RESULT: SparseElementwiseRule = Object.freeze({
  name: 'SparseSparseWithDenseResult',
  dispatch: (_attrs: Attrs, t: readonly StorageType[]): SparseDispatch => {
    if (t.includes('default')) return DENSE;
    if (only(t, 'row_sparse')) return DENSE;
    return FALLBACK;
  },
});

/** Attributes of the scalar ops (MXNet `NumpyBinaryScalarParam`'s `scalar`). */
export type ScalarAttrs = Attrs & { readonly scalar: number };

/** `_mul_scalar` / `_div_scalar` (MXNet `BinaryScalarStorageType`): the input's storage type. */
export const SCALAR_SAME_STORAGE: SparseElementwiseRule<ScalarAttrs> = Object.freeze({
  name: 'BinaryScalarStorageType',
  dispatch: (_attrs: ScalarAttrs, t: readonly StorageType[]): SparseDispatch => sparseOf(t[0]) ?? DENSE,
});

/**
 * `_plus_scalar` / `_minus_scalar` (MXNet `BinaryScalarStorageTypeWithDenseResultStorageType`): a
 * sparse input keeps its storage type when the scalar is 0, else the result is dense (computed by
 * the sparse kernel: f(0) fills the rest).
 */
export const SCALAR_DENSE_RESULT: SparseElementwiseRule<ScalarAttrs> = Object.freeze({
  name: 'BinaryScalarStorageTypeWithDenseResultStorageType',
  dispatch: (attrs: ScalarAttrs, t: readonly StorageType[]): SparseDispatch => {
    const s = sparseOf(t[0]);
    return s === undefined ? DENSE : attrs.scalar === 0 ? s : DENSE;
  },
});

/**
 * Scalar comparisons (MXNet `BinaryScalarLogicStorageType<OP>`): a sparse input keeps its storage
 * type when `fn(0, scalar)` is 0 (computed in double, as MXNet does), else falls back to dense.
 */
export function scalarLogicRule(
  fn: (x: number, scalar: number) => number,
): SparseElementwiseRule<ScalarAttrs> {
  return Object.freeze({
    name: 'BinaryScalarLogicStorageType',
    dispatch: (attrs: ScalarAttrs, t: readonly StorageType[]): SparseDispatch => {
      const s = sparseOf(t[0]);
      if (s === undefined) return DENSE;
      return fn(0, attrs.scalar) === 0 ? s : FALLBACK;
    },
  });
}

/** `OpDef.inferStorageType` from a rule: every output gets the rule's storage type. */
export function storageInference<A extends Attrs>(rule: SparseElementwiseRule<A>): StorageInference<A> {
  const infer = (attrs: A, inTypes: StorageType[], outTypes: StorageType[]): boolean => {
    outTypes.fill(rule.dispatch(attrs, inTypes).stype);
    return true;
  };
  return Object.assign(infer, { sparseRule: rule });
}

/** The storage rule an op declared through `storageInference`, or undefined (dense-only ops). */
export function sparseElementwiseRule(op: Op): SparseElementwiseRule | undefined {
  const infer = op.def.inferStorageType as Partial<StorageInference> | undefined;
  return infer?.sparseRule;
}

/**
 * Whether MXNet serves this signature with the op's sparse kernel (a backend's `computeExStorage`
 * for an op with a rule): the rule dispatches `computeEx` and the outputs have its storage type.
 */
export function servesSparse(
  rule: SparseElementwiseRule,
  attrs: Attrs,
  inTypes: readonly StorageType[],
  outTypes: readonly StorageType[],
): boolean {
  const d = rule.dispatch(attrs, inTypes);
  return d.computeEx && outTypes.every((t) => t === d.stype);
}
