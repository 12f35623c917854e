/**
 * Which storage manager a device gets, from MXNet's environment settings.
 *
 * Mirrors `StorageImpl::Alloc`'s manager choice: `MXNET_USE_NAIVE_STORAGE_MANAGER=1` turns pools
 * off everywhere; otherwise `MXNET_<DEV>_MEM_POOL_TYPE` (DEV = CPU, GPU, CPU_PINNED) picks Naive
 * (RoundMultiple buckets), Round (RoundPower2 buckets) or Unpooled; cpu_shared is always unpooled
 * (MXNet's CPUSharedStorageManager). Settings are read through `Env` when a manager is created, so a
 * malformed value surfaces as an MXNetError at the first allocation on that device, naming the
 * variable, and nothing half-built is kept.
 */
import { type DeviceType, type Env, MXNetError, type PoolDevice } from '@mx/base';
import type { ManagerName } from './stats.js';

export type ManagerConfig =
  | { readonly kind: 'Unpooled' }
  | {
      readonly kind: 'Naive';
      readonly page: number;
      readonly large: number;
      readonly reservePercent: number;
    }
  | {
      readonly kind: 'Round';
      readonly page: number;
      readonly logPage: number;
      readonly cutoff: number;
      readonly reservePercent: number;
    };

/** The `MXNET_<DEV>_...` family of a device type; null for cpu_shared (no pool settings). */
export function poolDeviceOf(deviceType: DeviceType): PoolDevice | null {
  switch (deviceType) {
    case 'cpu':
      return 'CPU';
    case 'gpu':
      return 'GPU';
    case 'cpu_pinned':
      return 'CPU_PINNED';
    case 'cpu_shared':
      return null;
    default:
      return deviceType satisfies never;
  }
}

function poolType(env: Env, deviceType: DeviceType): 'Naive' | 'Round' | 'Unpooled' {
  const dev = poolDeviceOf(deviceType);
  if (dev === null) return 'Unpooled';
  if (env.get('MXNET_USE_NAIVE_STORAGE_MANAGER')) return 'Unpooled';
  return env.get(`MXNET_${dev}_MEM_POOL_TYPE`);
}

/** The manager name the settings select for a device type (reads only the pool-type settings). */
export function resolveManagerName(env: Env, deviceType: DeviceType): ManagerName {
  const type = poolType(env, deviceType);
  return type === 'Unpooled' ? 'Unpooled' : `Pooled (${type})`;
}

/** Full, validated manager settings for a device type. Throws MXNetError naming a bad variable. */
export function resolveManagerConfig(env: Env, deviceType: DeviceType): ManagerConfig {
  const type = poolType(env, deviceType);
  const dev = poolDeviceOf(deviceType);
  if (type === 'Unpooled' || dev === null) return { kind: 'Unpooled' };
  const page = env.get(`MXNET_${dev}_POOL_PAGE_SIZE`);
  const reservePercent = env.get(`MXNET_${dev}_MEM_POOL_RESERVE`);
  if (type === 'Naive') {
    return { kind: 'Naive', page, large: env.get(`MXNET_${dev}_MEM_LARGE_ALLOC_ROUND_SIZE`), reservePercent };
  }
  const logPage = Math.log2(page);
  if (!Number.isInteger(logPage)) {
    throw new MXNetError(
      `MXNET_${dev}_POOL_PAGE_SIZE=${page} is not a power of 2, which the Round memory pool requires`,
      {
        op: 'Storage',
        params: { [`MXNET_${dev}_MEM_POOL_TYPE`]: 'Round', [`MXNET_${dev}_POOL_PAGE_SIZE`]: page },
        hint: `set MXNET_${dev}_POOL_PAGE_SIZE to a power of 2 such as 4096, or use MXNET_${dev}_MEM_POOL_TYPE=Naive`,
      },
    );
  }
  const cutoff = env.get(`MXNET_${dev}_MEM_POOL_ROUND_LINEAR_CUTOFF`);
  if (cutoff < logPage) {
    throw new MXNetError(
      `MXNET_${dev}_MEM_POOL_ROUND_LINEAR_CUTOFF=${cutoff} is below log2 of the page size (${logPage})`,
      {
        op: 'Storage',
        params: {
          [`MXNET_${dev}_MEM_POOL_ROUND_LINEAR_CUTOFF`]: cutoff,
          [`MXNET_${dev}_POOL_PAGE_SIZE`]: page,
        },
        hint: `set MXNET_${dev}_MEM_POOL_ROUND_LINEAR_CUTOFF to at least ${logPage} or lower the page size`,
      },
    );
  }
  return { kind: 'Round', page, logPage, cutoff, reservePercent };
}
