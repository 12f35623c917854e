/**
 * Storage-type inference of the optimizer updates that take row_sparse gradients (MXNet 1.9.1
 * optimizer_op.cc `SGDStorageType`, optimizer_op-inl.h `StdOptStorageType`, `AdagradStorageType`,
 * contrib/optimizer_op-inl.h `GroupAdagradStorageType`, and `ElemwiseStorageType<4, 1, false,
 * true, false>` for ftrl_update). The output always has the weight's storage type when a sparse
 * kernel serves the call; what MXNet dispatches to its dense fallback gets a dense output here too
 * (the NDArray layer runs that fallback when no kernel serves the signature).
 *
 * Which update runs (lazy: only the gradient's rows; standard: every row) is the kernel's choice
 * from `lazy_update` and these storage types, as in MXNet's `FComputeEx`. MXNet's storage
 * inference also logs its "Optimizer with lazy_update = True detected" note; inference here has no
 * runtime to log with, so @mx/optimizer logs that text where MXNet's optimizers would trigger it.
 *
 * The adagrad ops have no dense kernel in MXNet: a signature they do not serve (or wd ≠ 0 for
 * `_sparse_adagrad_update`) is an MXNetError at the call, as MXNet's failed inference is.
 */
import { MXNetError } from '@mx/base';
import type { StorageType } from '../../op-def.js';

type AttrsLike = Readonly<Record<string, unknown>>;
type StorageFn = (attrs: AttrsLike, inTypes: StorageType[], outTypes: StorageType[]) => boolean;

const RSP: StorageType = 'row_sparse';
const DNS: StorageType = 'default';

/** Dense or row_sparse: the weight storage types the sparse updates serve. */
function weightOk(t: StorageType | undefined): t is StorageType {
  return t === DNS || t === RSP;
}

function allAre(types: readonly (StorageType | undefined)[], t: StorageType): boolean {
  return types.every((x) => x === t);
}

function assign(outTypes: StorageType[], t: StorageType): boolean {
  outTypes[0] = t;
  return true;
}

/**
 * `sgd_update` (MXNet `SGDStorageType`): all dense → dense; a row_sparse gradient with a dense or
 * row_sparse weight → the weight's storage type; anything else → the dense fallback.
 */
export const sgdStorage: StorageFn = (_attrs, inTypes, outTypes) => {
  const [w, g] = inTypes;
  if (allAre(inTypes, DNS)) return assign(outTypes, DNS);
  if (g === RSP && weightOk(w)) return assign(outTypes, w);
  return assign(outTypes, DNS);
};

/**
 * `sgd_mom_update`, `adam_update` (MXNet `StdOptStorageType<num_states>`): the states must share
 * one storage type; a row_sparse gradient with states of the weight's storage type (lazy or
 * standard update, by `lazy_update`), or a row_sparse weight with dense states (standard update),
 * keeps the weight's storage type; anything else is the dense fallback.
 */
export function stdOptStorage(op: string, names: readonly string[], numStates: number): StorageFn {
  return (_attrs, inTypes, outTypes) => {
    const [w, g, s] = inTypes;
    for (let i = 3; i < 2 + numStates; i++) {
      if (inTypes[i] !== s) {
        throw new MXNetError(`Inconsistent storage types detected in state ${i}`, {
          op,
          hint: `the states (${names.slice(2).join(', ')}) must share one storage type; ${names[2]} is ${s}, ${names[i]} is ${inTypes[i]}`,
        });
      }
    }
    if (allAre(inTypes, DNS)) return assign(outTypes, DNS);
    if (g === RSP && weightOk(w) && s === w) return assign(outTypes, w);
    if (g === RSP && w === RSP && s === DNS) return assign(outTypes, RSP);
    return assign(outTypes, DNS);
  };
}

/**
 * `ftrl_update` (MXNet `ElemwiseStorageType<4, 1, false, true, false>`): all row_sparse → row_sparse
 * (the lazy update), all dense → dense, anything else (a dense weight with a row_sparse gradient
 * included) → the dense fallback, i.e. the standard update of every row.
 */
export const allRspStorage: StorageFn = (_attrs, inTypes, outTypes) =>
  assign(outTypes, allAre(inTypes, RSP) ? RSP : DNS);

/**
 * `_sparse_adagrad_update` (MXNet `AdagradStorageType`) and `_contrib_group_adagrad_update`
 * (`GroupAdagradStorageType`, `group`): a row_sparse gradient, a dense or
 * row_sparse weight and a history of the weight's storage type (and wd = 0 for the first) keep the
 * weight's storage type. Group adagrad maps all dense to dense as MXNet does (which then finds no
 * dense kernel); every other signature has no dispatch, an MXNetError.
 */
export function adagradStorage(op: string, group: boolean): StorageFn {
  return (attrs, inTypes, outTypes) => {
    const [w, g, s] = inTypes;
    if (group && allAre(inTypes, DNS)) return assign(outTypes, DNS);
    const wd = attrs.wd as number | undefined;
    if (g === RSP && weightOk(w) && s === w && (group || wd === 0)) return assign(outTypes, w);
    if (!group && wd !== 0 && g === RSP && weightOk(w) && s === w) {
      throw new MXNetError('sparse adagrad_update does not support wd.', {
        op,
        params: attrs,
        hint: "pass wd=0 (MXNet's sparse AdaGrad has no weight decay); the dense AdaGrad optimizer applies wd",
      });
    }
    throw new MXNetError(
      `no storage dispatch for weight ${w}, grad ${g}, history ${s}: ${op} updates with a row_sparse gradient, a default or row_sparse weight and a history of the weight's storage type`,
      {
        op,
        params: attrs,
        hint: group
          ? 'pass grad as a RowSparseNDArray and the history with the storage type of the weight'
          : 'pass grad as a RowSparseNDArray and the history with the storage type of the weight; dense gradients take the dense AdaGrad formula (the AdaGrad optimizer composes it)',
      },
    );
  };
}
