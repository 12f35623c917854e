/**
 * KernelCompiler with the real NVRTC (pip's wheel, when found): a kernel compiles to a cubin once
 * per machine (the second compiler reads the disk cache), and a broken kernel is an MXNetError
 * carrying NVRTC's log and naming the op — which fails only that op on a device.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MXNetError } from '@mx/base';
import { afterAll, describe, expect, it } from 'vitest';
import { loadAddon } from './addon.js';
import { loadLibrary } from './libraries.js';
import { KernelCompiler } from './nvrtc.js';

const addon = loadAddon();
const nvrtc = loadLibrary(addon, 'nvrtc');
const dir = mkdtempSync(join(tmpdir(), 'mx-cuda-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(nvrtc.loaded === null)('KernelCompiler (NVRTC)', () => {
  const env = { MX_CUDA_CACHE_DIR: dir };
  const src = {
    entry: 'mx_scale',
    code: 'extern "C" __global__ void mx_scale(float* x, long long n) { MX_GRID_LOOP(i, n) x[i] *= 2.0f; }',
  };

  it('compiles with the prelude and caches the cubin on disk', () => {
    const a = new KernelCompiler(addon, 90, env).compile(src, 'scale');
    expect([...a.slice(0, 4)]).toEqual([0x7f, 0x45, 0x4c, 0x46]);
    const files = readdirSync(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^sm_90-[0-9a-f]{32}\.cubin$/);
    // A second compiler (a later process) reads the file instead of compiling.
    const b = new KernelCompiler(addon, 90, env).compile(src, 'scale');
    expect(b).toEqual(a);
    expect(existsSync(join(dir, files[0] as string))).toBe(true);
    // Another architecture is another cubin.
    new KernelCompiler(addon, 80, env).compile(src, 'scale');
    expect(readdirSync(dir)).toHaveLength(2);
  });

  it('a kernel that does not compile is an MXNetError with the log, naming the op', () => {
    const bad = {
      entry: 'mx_bad',
      code: 'extern "C" __global__ void mx_bad(float* x) { x[0] = undefined_name; }',
    };
    let err: unknown;
    try {
      new KernelCompiler(addon, 90, { MX_CUDA_CACHE_DIR: '' }).compile(bad, 'Convolution');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(MXNetError);
    expect((err as MXNetError).op).toBe('Convolution');
    expect((err as MXNetError).reason).toContain('NVRTC could not compile the kernel mx_bad');
    expect((err as MXNetError).reason).toContain('identifier "undefined_name" is undefined');
  });
});
