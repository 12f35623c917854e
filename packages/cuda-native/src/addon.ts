/**
 * The native addon's surface, typed, and how it is found: node-gyp-build loads
 * `prebuilds/linux-x64/node.napi.node` (built by scripts/build-addon.mjs at build and pack time, so
 * the published tarball carries it) or a local `native/build/Release` build. One N-API binary
 * serves every Node ≥ 20. Loading the addon touches no CUDA library: those are dlopened later,
 * through `load`, with the candidate paths libraries.ts chooses.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MXNetError } from '@mx/base';

/** One file tried for a library: `error` is empty for the one that was taken. */
export interface LoadAttempt {
  readonly path: string;
  readonly error: string;
}

/** What loading one library found. */
export interface LibraryReport {
  /** The file that was loaded, or null. */
  readonly loaded: string | null;
  readonly tried: readonly LoadAttempt[];
}

/** Properties of one CUDA device (`cuDeviceGetAttribute`). */
export interface CudaDeviceInfo {
  readonly name: string;
  readonly totalMemory: number;
  readonly major: number;
  readonly minor: number;
  readonly multiprocessors: number;
  readonly maxThreadsPerBlock: number;
  readonly sharedMemoryPerBlock: number;
  readonly clockKHz: number;
  readonly memoryBusWidth: number;
  readonly pciBusId: number;
}

/** The native functions (native/addon.cc), as the backend calls them. Device addresses are Numbers. */
export interface CudaAddon {
  readonly abi: number;
  load(paths: {
    readonly driver?: readonly string[];
    readonly nvrtc?: readonly string[];
    readonly cublas?: readonly string[];
  }): { driver?: LibraryReport; nvrtc?: LibraryReport; cublas?: LibraryReport };
  preload(path: string): string;
  driverInit(): number;
  deviceCount(): number;
  deviceInfo(ordinal: number): CudaDeviceInfo;
  openDevice(ordinal: number): void;
  memAlloc(dev: number, bytes: number): number | null;
  memFree(dev: number, ptr: number): void;
  memInfo(dev: number): { free: number; total: number };
  write(dev: number, dst: number, src: ArrayBufferView): void;
  read(dev: number, src: number, bytes: number): Promise<ArrayBuffer>;
  synchronize(dev: number): Promise<void>;
  copy(dev: number, dst: number, src: number, bytes: number): void;
  copyPeer(dstDev: number, dst: number, srcDev: number, src: number, bytes: number): void;
  memset(dev: number, ptr: number, value: number, bytes: number): void;
  moduleLoad(dev: number, cubin: Uint8Array, entry: string): number;
  launch(
    dev: number,
    fn: number,
    gx: number,
    gy: number,
    gz: number,
    bx: number,
    by: number,
    bz: number,
    sharedBytes: number,
    args: Uint8Array,
    offsets: Uint32Array,
  ): void;
  nvrtcVersion(): [number, number];
  nvrtcCompile(
    source: string,
    name: string,
    options: readonly string[],
  ): { cubin: Uint8Array | null; log: string; error: string | null };
  cublasVersion(dev: number): number;
  gemm(
    dev: number,
    transA: number,
    transB: number,
    m: number,
    n: number,
    k: number,
    alpha: number,
    a: number,
    lda: number,
    strideA: number,
    b: number,
    ldb: number,
    strideB: number,
    beta: number,
    c: number,
    ldc: number,
    strideC: number,
    batch: number,
    dataType: number,
    computeType: number,
  ): void;
}

/** The package root (dist/ and src/ both sit one level below it). */
export function packageRoot(): string {
  return dirname(dirname(fileURLToPath(import.meta.url)));
}

let cached: CudaAddon | MXNetError | undefined;

/** The addon, loaded once; an MXNetError saying what is missing when it cannot load. */
export function loadAddon(): CudaAddon {
  if (cached === undefined) {
    try {
      const require = createRequire(import.meta.url);
      const build = require('node-gyp-build') as (dir: string) => unknown;
      cached = build(packageRoot()) as CudaAddon;
    } catch (e) {
      cached = new MXNetError(`the @mx/cuda-native addon could not be loaded: ${(e as Error).message}`, {
        op: 'createCudaBackend',
        hint:
          `expected ${join(packageRoot(), 'prebuilds', 'linux-x64', 'node.napi.node')} (shipped for linux-x64); ` +
          'on other platforms build it from the repository with `pnpm --filter @mx/cuda-native build`',
        cause: e,
      });
    }
  }
  if (cached instanceof MXNetError) throw cached;
  return cached;
}
