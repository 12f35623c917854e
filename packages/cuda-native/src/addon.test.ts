/**
 * The addon itself, without a GPU: it loads on this Node, exposes its functions, refuses calls
 * that need a driver with an Error carrying the CUDA-style code (MXNetErrors are made from these),
 * and compiles real CUDA C with NVRTC where a libnvrtc is found — the same path every kernel takes
 * on a GPU machine.
 */
import { describe, expect, it } from 'vitest';
import { loadAddon } from './addon.js';
import { cudaError } from './errors.js';
import { loadLibrary } from './libraries.js';
import { nvrtcOptions } from './nvrtc.js';

const addon = loadAddon();

describe('the addon', () => {
  it('loads and exposes the native functions', () => {
    expect(addon.abi).toBe(1);
    for (const f of [
      'load',
      'driverInit',
      'memAlloc',
      'write',
      'read',
      'launch',
      'nvrtcCompile',
      'gemm',
    ] as const) {
      expect(typeof addon[f]).toBe('function');
    }
  });

  it('refuses device calls before a driver is loaded, with a code', () => {
    let thrown: unknown;
    try {
      addon.memAlloc(0, 1024);
    } catch (e) {
      thrown = e;
    }
    expect((thrown as { codeName?: string }).codeName).toMatch(/^MX_/);
    const err = cudaError(thrown, 'alloc', 'gpu(0)');
    expect(err.op).toBe('alloc');
    expect(err.device).toBe('gpu(0)');
  });

  it('compiles CUDA C to a cubin with NVRTC, and reports compile errors with the log', (ctx) => {
    const s = loadLibrary(addon, 'nvrtc');
    if (s.loaded === null) {
      console.warn('NVRTC not found on this machine: compile path not exercised here');
      ctx.skip();
      return;
    }
    const [major] = addon.nvrtcVersion();
    expect(major).toBeGreaterThanOrEqual(12);
    const ok = addon.nvrtcCompile(
      'extern "C" __global__ void k(float* x) { x[threadIdx.x] *= 2.0f; }',
      'k.cu',
      nvrtcOptions(90),
    );
    expect(ok.error).toBeNull();
    // An ELF image (the cubin for sm_90).
    expect([...(ok.cubin ?? new Uint8Array()).slice(0, 4)]).toEqual([0x7f, 0x45, 0x4c, 0x46]);
    const bad = addon.nvrtcCompile(
      'extern "C" __global__ void k(float* x) { x[0] = y; }',
      'bad.cu',
      nvrtcOptions(90),
    );
    expect(bad.cubin).toBeNull();
    expect(bad.error).toBe('NVRTC_ERROR_COMPILATION');
    expect(bad.log).toContain('identifier "y" is undefined');
  });
});
