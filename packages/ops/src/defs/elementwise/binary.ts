/**
 * Binary SimpleOps: the same-shape legacy ops (`elemwise_add`, `_mod`, `_equal`...: MXNet
 * `elemwise_binary_op_{basic,extended,logic}.cc`) and their NumPy-broadcasting twins
 * (`broadcast_add`...: `elemwise_binary_broadcast_op_{basic,extended,logic}.cc`). One function
 * table feeds both, so a function's forward and gradient are written once.
 *
 * Gradients are per element in the output's shape (MXNet's `_backward_*` functors: `div_rgrad` =
 * -x/y², `mod_rgrad` = -floor(x/y), `power_rgrad` = x^y·ln x, maximum/minimum route the gradient by
 * `>=`/`<` and `<=`/`>`); for the broadcast ops the autograd layer sums them over the broadcast
 * axes down to each input's shape, as MXNet's `BinaryBroadcastBackwardUse*` does. Comparisons and
 * logic give 1/0 in the operand dtype and zero gradients (MXNet `MakeZeroGradNodes`).
 *
 * Storage types (sparse inputs) are MXNet's: `elemwise_add`/`_sub` `PreferDenseStorageType`,
 * `elemwise_mul` `PreferSparseStorageType`, `elemwise_div` `SparseSparseWithDenseResult`,
 * `_grad_add` `ElemwiseStorageType<2, 1, true, true, true>` (see sparse-elementwise.ts); the other
 * same-shape ops and every broadcast op are dense-only here (the storage fallback).
 */
import { E, type Expr } from '../../expr.js';
import type { OpRegistry } from '../../registry.js';
import {
  DENSE_RESULT,
  PREFER_DENSE,
  PREFER_SPARSE,
  SAME_STORAGE,
  type SparseElementwiseRule,
  storageInference,
} from '../../sparse-elementwise.js';
import { broadcastShape, elemwiseShape } from './common.js';

const { x, y, ograd: og, output: out } = E;

export interface BinaryFnEntry {
  /** Name stem: `elemwise_<stem>` / `_<stem>` and `broadcast_<stem>`. */
  readonly stem: string;
  readonly doc: string;
  readonly forward: Expr;
  readonly gradient: readonly (Expr | null)[];
  /** The same-shape op's name, aliases and (when MXNet serves sparse inputs) storage rule. */
  readonly elemwise: {
    readonly name: string;
    readonly aliases: readonly string[];
    readonly sparse?: SparseElementwiseRule;
  };
  /** The broadcast op's aliases. */
  readonly broadcastAliases?: readonly string[];
}

const ZERO2: readonly null[] = [null, null];

const legacy = (name: string, ...aliases: string[]) => ({ name, aliases });
const withSparse = (sparse: SparseElementwiseRule, name: string, ...aliases: string[]) => ({
  name,
  aliases,
  sparse,
});

/** Every binary function, with the names MXNet registers for it. */
export const BINARY_OPS: readonly BinaryFnEntry[] = [
  {
    stem: 'add',
    doc: 'x + y',
    forward: E.add(x, y),
    gradient: [og, og],
    elemwise: withSparse(PREFER_DENSE, 'elemwise_add', '_add', '_plus', '_Plus', '_sparse_elemwise_add'),
    broadcastAliases: ['broadcast_plus', '_sparse_broadcast_add', '_sparse_broadcast_plus'],
  },
  {
    stem: 'sub',
    doc: 'x - y',
    forward: E.sub(x, y),
    gradient: [og, E.neg(og)],
    elemwise: withSparse(PREFER_DENSE, 'elemwise_sub', '_sub', '_minus', '_Minus', '_sparse_elemwise_sub'),
    broadcastAliases: ['broadcast_minus', '_sparse_broadcast_sub', '_sparse_broadcast_minus'],
  },
  {
    stem: 'mul',
    doc: 'x * y',
    forward: E.mul(x, y),
    gradient: [E.mul(og, y), E.mul(og, x)],
    elemwise: withSparse(PREFER_SPARSE, 'elemwise_mul', '_mul', '_Mul', '_sparse_elemwise_mul'),
    broadcastAliases: ['_sparse_broadcast_mul'],
  },
  {
    stem: 'div',
    doc: 'x / y (integers truncate)',
    forward: E.div(x, y),
    gradient: [E.div(og, y), E.neg(E.div(E.mul(og, x), E.square(y)))],
    elemwise: withSparse(DENSE_RESULT, 'elemwise_div', '_div', '_Div', '_sparse_elemwise_div'),
    broadcastAliases: ['_sparse_broadcast_div'],
  },
  {
    stem: 'mod',
    doc: 'x mod y, sign of the divisor; 0 where y == 0',
    forward: E.mod(x, y),
    gradient: [og, E.mul(og, E.neg(E.floor(E.div(x, y))))],
    elemwise: legacy('_mod', '_Mod'),
  },
  {
    stem: 'power',
    doc: 'x ** y',
    forward: E.pow(x, y),
    gradient: [E.mul(og, E.mul(y, E.pow(x, E.sub(y, 1)))), E.mul(og, E.mul(out, E.log(x)))],
    elemwise: legacy('_power', '_Power'),
  },
  {
    stem: 'maximum',
    doc: 'max(x, y)',
    forward: E.max(x, y),
    gradient: [E.mul(og, E.ge(x, y)), E.mul(og, E.lt(x, y))],
    elemwise: legacy('_maximum', '_Maximum'),
  },
  {
    stem: 'minimum',
    doc: 'min(x, y)',
    forward: E.min(x, y),
    gradient: [E.mul(og, E.le(x, y)), E.mul(og, E.gt(x, y))],
    elemwise: legacy('_minimum', '_Minimum'),
  },
  {
    stem: 'hypot',
    doc: 'sqrt(x² + y²)',
    forward: E.hypot(x, y),
    gradient: [E.mul(og, E.div(x, out)), E.mul(og, E.div(y, out))],
    elemwise: legacy('_hypot', '_Hypot'),
  },
  {
    stem: 'equal',
    doc: 'x == y (1 or 0)',
    forward: E.eq(x, y),
    gradient: ZERO2,
    elemwise: legacy('_equal', '_Equal'),
  },
  {
    stem: 'not_equal',
    doc: 'x != y (1 or 0)',
    forward: E.ne(x, y),
    gradient: ZERO2,
    elemwise: legacy('_not_equal', '_Not_Equal'),
  },
  {
    stem: 'greater',
    doc: 'x > y (1 or 0)',
    forward: E.gt(x, y),
    gradient: ZERO2,
    elemwise: legacy('_greater', '_Greater'),
  },
  {
    stem: 'greater_equal',
    doc: 'x >= y (1 or 0)',
    forward: E.ge(x, y),
    gradient: ZERO2,
    elemwise: legacy('_greater_equal', '_Greater_Equal'),
  },
  {
    stem: 'lesser',
    doc: 'x < y (1 or 0)',
    forward: E.lt(x, y),
    gradient: ZERO2,
    elemwise: legacy('_lesser', '_Lesser'),
  },
  {
    stem: 'lesser_equal',
    doc: 'x <= y (1 or 0)',
    forward: E.le(x, y),
    gradient: ZERO2,
    elemwise: legacy('_lesser_equal', '_Lesser_Equal'),
  },
  {
    stem: 'logical_and',
    doc: 'x && y (1 or 0)',
    forward: E.and(x, y),
    gradient: ZERO2,
    elemwise: legacy('_logical_and', '_Logical_And'),
  },
  {
    stem: 'logical_or',
    doc: 'x || y (1 or 0)',
    forward: E.or(x, y),
    gradient: ZERO2,
    elemwise: legacy('_logical_or', '_Logical_Or'),
  },
  {
    stem: 'logical_xor',
    doc: 'bool(x) != bool(y) (1 or 0)',
    forward: E.xor(x, y),
    gradient: ZERO2,
    elemwise: legacy('_logical_xor', '_Logical_Xor'),
  },
];

const BINARY_INPUTS = ['lhs', 'rhs'] as const;
/** MXNet `MXNET_OPERATOR_REGISTER_BINARY[_BROADCAST]`: the output may reuse either input. */
const BINARY_INPLACE: readonly (readonly [number, number])[] = [
  [0, 0],
  [1, 0],
];

/** Register the same-shape and the broadcasting op of every binary function, plus `_grad_add`. */
export function registerBinary(registry: OpRegistry): void {
  for (const f of BINARY_OPS) {
    const name = f.elemwise.name;
    registry.define({
      name,
      aliases: f.elemwise.aliases,
      doc: `${f.doc}, element-wise (identical shapes)`,
      numInputs: 2,
      listInputNames: BINARY_INPUTS,
      inferShape: (attrs, inS, outS) => elemwiseShape(name, attrs, inS, outS),
      inplaceOption: () => BINARY_INPLACE,
      ...(f.elemwise.sparse ? { inferStorageType: storageInference(f.elemwise.sparse) } : {}),
      elementwise: { forward: f.forward, gradient: f.gradient },
    });
    const bname = `broadcast_${f.stem}`;
    registry.define({
      name: bname,
      aliases: f.broadcastAliases ?? [],
      doc: `${f.doc}, element-wise with NumPy broadcasting`,
      numInputs: 2,
      listInputNames: BINARY_INPUTS,
      inferShape: (attrs, inS, outS) => broadcastShape(bname, attrs, inS, outS),
      inplaceOption: () => BINARY_INPLACE,
      elementwise: { forward: f.forward, gradient: f.gradient, broadcast: true },
    });
  }
  // MXNet's gradient-aggregation add: elemwise_add under another name so graph passes keep it apart.
  registry.define({
    name: '_grad_add',
    doc: 'x + y for gradient aggregation (identical shapes)',
    numInputs: 2,
    listInputNames: BINARY_INPUTS,
    inferShape: (attrs, inS, outS) => elemwiseShape('_grad_add', attrs, inS, outS),
    inplaceOption: () => BINARY_INPLACE,
    inferStorageType: storageInference(SAME_STORAGE),
    elementwise: { forward: E.add(x, y), gradient: [og, og] },
  });
}
