/**
 * `create(runtime, type)`: MXNet's `mx.kv.create(name)`. Asynchronous because a distributed store
 * has to reach its scheduler and servers before it can be used; the single-process stores resolve
 * at once (`new LocalKVStore(runtime, type)` makes one synchronously).
 *
 * Names are matched by `storeKind` (store-type.ts), as MXNet's `KVStore::Create` does.
 */
import { MXNetError } from '@mx/base';
import type { Runtime } from '@mx/ndarray';
import { createDist } from './connect.js';
import type { KVStore } from './kvstore.js';
import { LocalKVStore } from './local.js';
import { type KVStoreType, storeKind } from './store-type.js';

/**
 * A KVStore of the given type on `runtime` (MXNet `mx.kv.create`, default `'local'`).
 * `local`/`device` live in this process; `dist_sync`, `dist_async` and `dist_device_sync` join the
 * job of the DMLC_* environment over ZeroMQ (on a server or scheduler process they serve it and
 * exit instead); `nccl`, `horovod` and `byteps` are refused with an MXNetError saying why.
 */
export async function create(runtime: Runtime, type: KVStoreType | string = 'local'): Promise<KVStore> {
  const kind = storeKind(type);
  const op = 'kv.create';
  switch (kind) {
    case 'local':
    case 'device':
      return new LocalKVStore(runtime, type);
    case 'dist':
      // a worker joins the job; a server or scheduler process serves it and exits (MXNet's rule)
      return createDist(runtime, type.toLowerCase());
    case 'nccl':
      throw new MXNetError(`compile with USE_NCCL=1 to use ${type.toLowerCase()}`, {
        op,
        hint: "NCCL is CUDA's collective library, which @mx does not use; 'device' sums on the devices instead",
      });
    case 'horovod':
    case 'byteps':
      throw new MXNetError(
        `the ${kind} store needs the ${kind} Python package, which has no @mx counterpart`,
        {
          op,
          hint: "use 'device' in one process",
        },
      );
    default:
      return kind satisfies never;
  }
}
