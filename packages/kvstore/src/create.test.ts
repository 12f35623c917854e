/**
 * `create(runtime, type)`: MXNet's name matching (lowercased, by substring), the stores it makes,
 * and the refusals: distributed types outside a launched job (no DMLC_* environment), `nccl` with MXNet's
 * message, Python-only stores, and unknown names.
 */
import { MXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import { create } from './create.js';
import { LocalKVStore } from './local.js';
import { storeKind } from './store-type.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 16 })] });
afterAll(async () => {
  await rt.dispose();
});

describe('create', () => {
  it('makes local and device stores, keeping the lowercased name as the type', async () => {
    const plain = await create(rt);
    const dev = await create(rt, 'Device');
    const old = await create(rt, 'local_allreduce_device');
    expect([plain.type, dev.type, old.type]).toEqual(['local', 'device', 'local_allreduce_device']);
    expect([plain, dev, old].every((kv) => kv instanceof LocalKVStore)).toBe(true);
    expect(() => dev.setGradientCompression({ type: '2bit' })).not.toThrow();
    expect(() => old.setGradientCompression({ type: '2bit' })).not.toThrow();
    expect(() => plain.setGradientCompression({ type: '2bit' })).toThrow(MXNetError);
    for (const kv of [plain, dev, old]) kv.dispose();
  });

  it('matches names as MXNet does', () => {
    expect(
      [
        'local',
        'LOCAL',
        'local_update_cpu',
        'device',
        'dist_sync',
        'dist_device_sync',
        'dist_async',
        'nccl',
      ].map(storeKind),
    ).toEqual(['local', 'local', 'local', 'device', 'dist', 'dist', 'dist', 'nccl']);
  });

  it('a distributed store outside a launched job says which DMLC_* variable is missing', async () => {
    for (const t of ['dist_sync', 'dist_device_sync', 'dist_async', 'DIST_SYNC_DEVICE']) {
      await expect(create(rt, t)).rejects.toThrow(/DMLC_ROLE is not set/);
    }
  });

  it("refuses nccl with MXNet's message, Python-only stores and unknown names", async () => {
    await expect(create(rt, 'nccl')).rejects.toThrow(/compile with USE_NCCL=1 to use nccl/);
    await expect(create(rt, 'horovod')).rejects.toThrow(/horovod Python package/);
    await expect(create(rt, 'byteps')).rejects.toThrow(MXNetError);
    await expect(create(rt, 'loacl')).rejects.toThrow(/unknown KVStore type 'loacl'/);
    await expect(create(rt, 3 as never)).rejects.toThrow(/name must be a string/);
    expect(() => new LocalKVStore(rt, 'dist_sync')).toThrow(/serves 'local' and 'device' stores/);
  });
});
