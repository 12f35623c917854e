/**
 * Finding the CUDA libraries, and failing well where they are missing (this machine has no driver
 * and no cuBLAS; pip's NVRTC wheel may be installed): the search order, the per-library report of
 * every file tried, and the MXNetError createCudaBackend gives — never a crash.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMXNetError, MXNetError } from '@mx/base';
import { afterAll, describe, expect, it } from 'vitest';
import { loadAddon } from './addon.js';
import { createCudaBackend, probeCuda } from './backend.js';
import {
  candidates,
  describeStatus,
  loadLibrary,
  missingLibrariesError,
  searchFolders,
} from './libraries.js';

const dir = mkdtempSync(join(tmpdir(), 'mx-cuda-lib-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('library search', () => {
  it('tries MX_CUDA_LIB_DIR first, then the loader path, then the CUDA and pip folders', () => {
    writeFileSync(join(dir, 'libnvrtc.so.12'), 'not an ELF file');
    writeFileSync(join(dir, 'libnvrtc-builtins.so.12.4'), 'x');
    const env = { MX_CUDA_LIB_DIR: dir, HOME: dir };
    const c = candidates('nvrtc', env);
    expect(c[0]).toEqual({
      path: join(dir, 'libnvrtc.so.12'),
      preload: [join(dir, 'libnvrtc-builtins.so.12.4')],
    });
    expect(c.slice(1, 3).map((x) => x.path)).toEqual(['libnvrtc.so.13', 'libnvrtc.so.12']);
    const folders = searchFolders('nvrtc', env);
    expect(folders[0]).toBe(dir);
    expect(folders.some((f) => f.startsWith('/usr/local/cuda'))).toBe(true);
    expect(searchFolders('driver', env)).toContain('/usr/lib/x86_64-linux-gnu');
  });

  it('reports each file tried and why it failed', () => {
    const addon = loadAddon();
    const env = { MX_CUDA_LIB_DIR: dir, HOME: dir, PYENV_ROOT: dir };
    const s = loadLibrary(addon, 'cublas', env);
    if (s.loaded !== null) return; // a machine with cuBLAS installed
    writeFileSync(join(dir, 'libcublas.so.13'), 'not an ELF file');
    const bad = loadLibrary(addon, 'cublas', env);
    expect(bad.loaded).toBeNull();
    const mine = bad.tried.find((t) => t.path === join(dir, 'libcublas.so.13'));
    expect(mine?.error).toMatch(/invalid ELF header|file too short/);
    expect(bad.tried.map((t) => t.path)).toContain('libcublas.so.13');
    const text = describeStatus(bad);
    expect(text).toContain('cublas: cuBLAS');
    expect(text).toContain('NOT FOUND');
    expect(text).toContain(`tried ${join(dir, 'libcublas.so.13')}`);
    const err = missingLibrariesError([bad]);
    expect(err).toBeInstanceOf(MXNetError);
    expect(err.hint).toContain('pip install nvidia-cublas');
  });
});

describe('without a CUDA driver', () => {
  const probe = probeCuda();
  it.skipIf(probe.devices.length > 0)('probeCuda says what is missing and never throws', () => {
    expect(probe.addonError).toBeNull();
    const driver = probe.libraries.find((l) => l.library === 'driver');
    expect(driver?.loaded === null || probe.driverError !== null).toBe(true);
    if (driver?.loaded === null) {
      expect(driver.tried.map((t) => t.path)).toContain('libcuda.so.1');
      expect(probe.driverError).toContain('libcuda');
    }
  });

  it.skipIf(probe.devices.length > 0)(
    'createCudaBackend rejects with one MXNetError naming each library',
    async () => {
      const err = await createCudaBackend().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isMXNetError(err)).toBe(true);
      const e = err as MXNetError;
      expect(e.op).toBe('createCudaBackend');
      const missing = probe.libraries.filter((l) => l.loaded === null).map((l) => l.library);
      if (missing.length > 0) {
        expect(e.reason).toContain(`CUDA libraries not found: ${missing.join(', ')}`);
        if (missing.includes('driver')) expect(e.hint).toContain('NVIDIA driver');
      }
      // The addon is still usable afterwards: no crash, no poisoned state.
      expect(probeCuda().addonError).toBeNull();
    },
  );
});
