/**
 * Device acquisition's bad paths, which need no GPU: no adapter, a device request refused, and a
 * GPU object whose adapter request throws — each an MXNetError saying what to do.
 */
import { MXNetError } from '@mx/base';
import { describe, expect, it } from 'vitest';
import { createWebGpuBackend } from './backend.js';

const fakeGpu = (adapter: () => Promise<unknown>): GPU => ({ requestAdapter: adapter }) as unknown as GPU;

describe('createWebGpuBackend without a usable device', () => {
  it('reports a missing adapter', async () => {
    const err = await createWebGpuBackend({ gpu: fakeGpu(async () => null) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MXNetError);
    expect(String(err)).toMatch(/no WebGPU adapter/);
    expect((err as MXNetError).hint).toMatch(/driver|SwiftShader/);
  });

  it('reports an adapter request that throws as a missing adapter', async () => {
    const err = await createWebGpuBackend({
      gpu: fakeGpu(async () => {
        throw new Error('boom');
      }),
    }).catch((e: unknown) => e);
    expect(String(err)).toMatch(/no WebGPU adapter/);
  });

  it('reports a refused device', async () => {
    const adapter = {
      features: new Set<string>(),
      limits: {},
      requestDevice: async () => {
        throw new Error('limits too high');
      },
    };
    const err = await createWebGpuBackend({ gpu: fakeGpu(async () => adapter) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MXNetError);
    expect(String(err)).toMatch(/refused to create a device/);
  });
});
