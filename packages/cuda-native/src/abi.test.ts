/**
 * The addon declares the CUDA prototypes it calls (it builds without CUDA headers); this compiles
 * native/abi_check.cc against NVIDIA's real headers wherever they are installed, so a prototype or
 * constant that differs fails here rather than corrupting a call on a GPU machine.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from './addon.js';
import { searchFolders } from './libraries.js';

const cudaInclude = ['/usr/local/cuda/include', '/usr/include'].find((d) => existsSync(join(d, 'cuda.h')));

/** A pip wheel's include folder holding `header` (nvidia/<component>/include), if any. */
function wheelInclude(header: string): string | undefined {
  return searchFolders('nvrtc')
    .map((lib) => join(lib, '..', 'include'))
    .find((d) => existsSync(join(d, header)));
}

describe('addon ABI', () => {
  it.skipIf(cudaInclude === undefined)('matches cuda.h (and nvrtc.h / cublas_api.h where installed)', () => {
    const args = ['-std=c++17', '-fsyntax-only', `-I${cudaInclude}`];
    const nvrtc = wheelInclude('nvrtc.h');
    if (nvrtc !== undefined) args.push('-DMX_HAVE_NVRTC_H', `-I${nvrtc}`);
    else console.warn('abi: nvrtc.h not found; NVRTC prototypes checked only by the NVRTC compile tests');
    const cublas = wheelInclude('cublas_api.h');
    if (cublas !== undefined) args.push('-DMX_HAVE_CUBLAS_H', `-I${cublas}`);
    else console.warn('abi: cublas_api.h not found; cuBLAS prototypes not checked on this machine');
    const out = execFileSync('g++', [...args, join(packageRoot(), 'native', 'abi_check.cc')], {
      encoding: 'utf8',
    });
    expect(out).toBe('');
  });
});
