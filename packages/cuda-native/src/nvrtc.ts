/**
 * Kernel compilation with NVRTC: the prelude plus a family's source become a cubin for the device's
 * exact architecture (no PTX JIT at load time), cached in memory and on disk by a hash of the
 * source, the NVRTC version and the options, so a program pays for each kernel once per machine.
 * The disk cache lives in `MX_CUDA_CACHE_DIR` (default `~/.cache/mx/cuda-kernels`); a cache that
 * cannot be written is skipped silently (compiling again is always correct).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { MXNetError } from '@mx/base';
import type { CudaAddon } from './addon.js';
import { type CudaSource, PRELUDE } from './cuda-c.js';
import type { EnvVars } from './libraries.js';

/** NVRTC options for `arch` (e.g. 90): float32 math stays IEEE (no fast-math), as cpu-wasm's. */
export function nvrtcOptions(arch: number): string[] {
  return [`--gpu-architecture=sm_${arch}`, '--std=c++17', '-default-device', '--diag-suppress=177'];
}

/** The full translation unit NVRTC compiles for a source. */
export function fullSource(src: CudaSource): string {
  return PRELUDE + src.code;
}

export class KernelCompiler {
  readonly #addon: CudaAddon;
  readonly #arch: number;
  readonly #memo = new Map<string, Uint8Array>();
  readonly #dir: string | null;
  readonly #version: string;

  constructor(addon: CudaAddon, arch: number, env: EnvVars = process.env) {
    this.#addon = addon;
    this.#arch = arch;
    this.#version = addon.nvrtcVersion().join('.');
    const dir = env.MX_CUDA_CACHE_DIR ?? join(env.HOME ?? homedir(), '.cache', 'mx', 'cuda-kernels');
    this.#dir = env.MX_CUDA_CACHE_DIR === '' ? null : dir;
  }

  /** The cubin of `src` (an MXNetError with NVRTC's log when it does not compile). */
  compile(src: CudaSource, op: string): Uint8Array {
    const text = fullSource(src);
    const options = nvrtcOptions(this.#arch);
    const key = createHash('sha256')
      .update(`${this.#version}\0${options.join(' ')}\0${text}`)
      .digest('hex');
    const hit = this.#memo.get(key);
    if (hit !== undefined) return hit;
    const file = this.#dir === null ? null : join(this.#dir, `sm_${this.#arch}-${key.slice(0, 32)}.cubin`);
    if (file !== null) {
      try {
        const cubin = new Uint8Array(readFileSync(file));
        this.#memo.set(key, cubin);
        return cubin;
      } catch {
        // not cached yet
      }
    }
    const r = this.#addon.nvrtcCompile(text, `${src.entry}.cu`, options);
    if (r.cubin === null) {
      throw new MXNetError(
        `NVRTC could not compile the kernel ${src.entry}: ${r.error ?? 'unknown error'}\n${r.log}`,
        {
          op,
          device: `gpu (sm_${this.#arch})`,
          hint: 'this is a bug in the generated kernel; please report it with this log (other ops keep working)',
        },
      );
    }
    this.#memo.set(key, r.cubin);
    if (file !== null && this.#dir !== null) {
      try {
        mkdirSync(this.#dir, { recursive: true });
        const tmp = `${file}.${process.pid}.tmp`;
        writeFileSync(tmp, r.cubin);
        renameSync(tmp, file);
      } catch {
        // read-only cache folder: keep the in-memory copy only
      }
    }
    return r.cubin;
  }
}
