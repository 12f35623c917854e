/**
 * Store type names, matched as MXNet's `KVStore::Create` does: lowercased and by substring. `dist`
 * anywhere is a distributed store (`dist_sync`, `dist_async`, `dist_device_sync`, …), `nccl` the
 * NCCL store, `device` anywhere the device store (`device`, `local_allreduce_device`), and names
 * starting with `local` the local store. Deliberate difference: MXNet silently makes a local store
 * for any other name; here an unknown name (usually a typo) is refused.
 */
import { MXNetError } from '@mx/base';

/** The store types MXNet documents for `mx.kv.create`. */
export type KVStoreType =
  | 'local'
  | 'device'
  | 'nccl'
  | 'dist_sync'
  | 'dist_device_sync'
  | 'dist_async'
  | 'dist_sync_device'
  | 'horovod'
  | 'byteps';

/** What kind of store a type name asks for. */
export type StoreKind = 'local' | 'device' | 'dist' | 'nccl' | 'horovod' | 'byteps';

/** The kind of store `name` names (MXNet's matching rules), or an MXNetError for unknown names. */
export function storeKind(name: string): StoreKind {
  if (typeof name !== 'string') {
    throw new MXNetError(`name must be a string, got ${typeof name}`, { op: 'kv.create' });
  }
  const n = name.toLowerCase();
  if (n === 'horovod' || n === 'byteps') return n;
  if (n.includes('dist')) return 'dist';
  if (n.includes('nccl')) return 'nccl';
  if (n.includes('device')) return 'device';
  if (n.startsWith('local')) return 'local';
  throw new MXNetError(`unknown KVStore type '${name}'`, {
    op: 'kv.create',
    hint: "use 'local' or 'device' (single process), or 'dist_sync', 'dist_device_sync', 'dist_async' (distributed)",
  });
}
