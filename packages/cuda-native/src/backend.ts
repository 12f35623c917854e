/**
 * CudaBackend: serves `gpu(i)` for every CUDA device the driver reports. Device memory comes from
 * cuMemAlloc and is pooled by @mx/storage like every backend's; host data goes in through pinned
 * staging buffers (queued, so writes overlap with kernels) and comes back asynchronously (`read`;
 * `readSync` is refused, as on webgpu). Each device has one stream and a DeviceRuntime; kernels
 * are generated from the registry's operator definitions (kernels/).
 *
 * Nothing here runs at import: `createCudaBackend()` loads the addon, then libcuda, NVRTC and
 * cuBLAS (libraries.ts), and fails with one MXNetError that lists every library that is missing,
 * where it was looked for and how to install it — never a crash.
 */
import { type Context, DType, type DTypeName, MXNetError, type StorageArray } from '@mx/base';
import type { Backend, BackendCapabilities, OpRegistry, TBlob } from '@mx/ops';
import type { DeviceAllocator } from '@mx/storage';
import { type CudaAddon, type CudaDeviceInfo, loadAddon } from './addon.js';
import { CUDA_DTYPES } from './cuda-c.js';
import { DeviceRuntime } from './device-runtime.js';
import { cudaError } from './errors.js';
import { CUDA, type CudaHost } from './kernel.js';
import { installFamilies } from './kernels/index.js';
import { type EnvVars, type LibraryStatus, loadLibrary, missingLibrariesError } from './libraries.js';
import { KernelCompiler } from './nvrtc.js';
import type { CudaRuntime } from './runtime.js';

export { CUDA };

/** The oldest driver API version accepted (CUDA 12.0). */
const MIN_DRIVER = 12000;

export interface CudaBackendOptions {
  /** Allow TF32 tensor-core math in float32 GEMMs (off by default, so float32 results match cpu(0)). */
  readonly tf32?: boolean;
  /** Environment to read MX_CUDA_LIB_DIR / MX_CUDA_CACHE_DIR from (default process.env). */
  readonly env?: EnvVars;
}

/** What `probeCuda()` found. */
export interface CudaProbe {
  /** The addon's load error, or null when it loaded. */
  readonly addonError: string | null;
  readonly libraries: readonly LibraryStatus[];
  /** CUDA version the driver supports (e.g. 13000), or null without a working driver. */
  readonly driverVersion: number | null;
  readonly devices: readonly CudaDeviceInfo[];
  /** The driver's error when it did not initialise. */
  readonly driverError: string | null;
}

function versionText(v: number): string {
  return `${Math.floor(v / 1000)}.${Math.floor((v % 1000) / 10)}`;
}

/**
 * Look for the addon, the libraries and the devices without creating a backend: what was found and
 * what was tried. Never throws.
 */
export function probeCuda(env: EnvVars = process.env): CudaProbe {
  let addon: CudaAddon;
  try {
    addon = loadAddon();
  } catch (e) {
    return {
      addonError: (e as Error).message,
      libraries: [],
      driverVersion: null,
      devices: [],
      driverError: null,
    };
  }
  const libraries = (['driver', 'nvrtc', 'cublas'] as const).map((l) => loadLibrary(addon, l, env));
  if (libraries[0]?.loaded === null) {
    return {
      addonError: null,
      libraries,
      driverVersion: null,
      devices: [],
      driverError: 'libcuda was not found',
    };
  }
  try {
    const driverVersion = addon.driverInit();
    const n = addon.deviceCount();
    const devices = Array.from({ length: n }, (_, i) => addon.deviceInfo(i));
    return { addonError: null, libraries, driverVersion, devices, driverError: null };
  } catch (e) {
    return {
      addonError: null,
      libraries,
      driverVersion: null,
      devices: [],
      driverError: (e as Error).message,
    };
  }
}

export class CudaBackend implements Backend<number>, CudaHost {
  readonly name = CUDA;
  readonly deviceTypes = Object.freeze(['gpu'] as const);
  readonly capabilities: BackendCapabilities;
  /** Devices found, by ordinal. */
  readonly devices: readonly CudaDeviceInfo[];
  readonly driverVersion: number;
  readonly #addon: CudaAddon | null;
  readonly #options: Required<Pick<CudaBackendOptions, 'tf32'>> & { env: EnvVars };
  readonly #runtimes = new Map<number, DeviceRuntime>();
  /** Allocation base → device ordinal (blobs carry the allocation's address, not its device). */
  readonly #owner = new Map<number, number>();
  /** One compiler (and cubin cache) per architecture: mixed-GPU machines get a cubin each. */
  readonly #compilers = new Map<number, KernelCompiler>();
  #current: CudaRuntime | null = null;

  /** Use `createCudaBackend()`; a null addon registers kernels without a device (docs, coverage). */
  constructor(
    addon: CudaAddon | null,
    devices: readonly CudaDeviceInfo[] = [],
    driverVersion = 0,
    options: CudaBackendOptions = {},
  ) {
    this.#addon = addon;
    this.devices = devices;
    this.driverVersion = driverVersion;
    this.#options = { tf32: options.tf32 ?? false, env: options.env ?? process.env };
    const minMem = devices.length > 0 ? Math.min(...devices.map((d) => d.totalMemory)) : 2 ** 34;
    this.capabilities = Object.freeze({
      computeDTypes: CUDA_DTYPES,
      storageDTypes: Object.freeze(Object.keys(DType) as DTypeName[]),
      syncRead: false,
      maxBufferBytes: minMem,
    });
  }

  /** The runtime of the device the running op is on (set by `select`). */
  get rt(): CudaRuntime {
    if (this.#current === null) {
      throw new MXNetError('no CUDA device is selected (this backend was made for listing kernels only)', {
        op: 'cuda',
        hint: 'create one with await createCudaBackend()',
      });
    }
    return this.#current;
  }

  select(ctx: Context): void {
    this.#current = this.runtime(ctx.deviceId, 'cuda');
  }

  /** The DeviceRuntime of `gpu(ordinal)`, opening the device at first use. */
  runtime(ordinal: number, op: string): DeviceRuntime {
    let rt = this.#runtimes.get(ordinal);
    if (rt !== undefined) return rt;
    const addon = this.#addon;
    const info = this.devices[ordinal];
    if (addon === null || info === undefined) {
      throw new MXNetError(
        `gpu(${ordinal}) does not exist: ${this.devices.length} CUDA device(s) were found`,
        {
          op,
          device: `gpu(${ordinal})`,
          hint: this.devices.length > 0 ? `use gpu(0)…gpu(${this.devices.length - 1})` : 'use cpu(0)',
        },
      );
    }
    try {
      addon.openDevice(ordinal);
    } catch (e) {
      throw cudaError(e, op, `gpu(${ordinal})`);
    }
    const arch = info.major * 10 + info.minor;
    let compiler = this.#compilers.get(arch);
    if (compiler === undefined) {
      compiler = new KernelCompiler(addon, arch, this.#options.env);
      this.#compilers.set(arch, compiler);
    }
    rt = new DeviceRuntime(addon, ordinal, info, compiler, { tf32: this.#options.tf32 });
    this.#runtimes.set(ordinal, rt);
    return rt;
  }

  #deviceOf(b: TBlob<number>, op: string): DeviceRuntime {
    const d = b.ptr === null ? undefined : this.#owner.get(b.ptr);
    if (d === undefined) {
      throw new MXNetError('this array was not allocated by the cuda backend', {
        op,
        shapes: [b.shape],
        device: 'gpu',
      });
    }
    return this.runtime(d, op);
  }

  allocator(ctx: Context): DeviceAllocator<number> {
    const rt = this.runtime(ctx.deviceId, 'alloc');
    const addon = this.#addon as CudaAddon;
    return {
      name: 'cuda',
      alignment: 256,
      alloc: (size) => {
        const p = rt.call(() => addon.memAlloc(rt.device, size), 'alloc');
        if (p !== null) this.#owner.set(p, rt.device);
        return p;
      },
      free: (ptr) => {
        this.#owner.delete(ptr);
        rt.call(() => addon.memFree(rt.device, ptr), 'free');
      },
      memoryInfo: () => rt.call(() => addon.memInfo(rt.device), 'memoryInfo'),
      setExhaustedHandler: (h) => {
        rt.exhausted = h;
      },
    };
  }

  checkAvailable(ctx: Context, op: string): void {
    this.runtime(ctx.deviceId, op).checkAlive(op);
  }

  install(registry: OpRegistry): void {
    installFamilies(registry, this);
  }

  write(dst: TBlob<number>, src: StorageArray): void {
    if (src.length !== dst.size) {
      throw new MXNetError(`cannot write ${src.length} elements into an array of ${dst.size}`, {
        op: 'CudaBackend.write',
        shapes: [dst.shape],
        dtypes: [dst.dtype],
        device: 'gpu',
      });
    }
    if (dst.size === 0 || dst.ptr === null) return;
    const rt = this.#deviceOf(dst, 'write');
    const addon = this.#addon as CudaAddon;
    rt.call(
      () => addon.write(rt.device, (dst.ptr as number) + dst.byteOffset, src as ArrayBufferView),
      'write',
    );
  }

  readSync(src: TBlob<number>): StorageArray {
    throw new MXNetError(
      'CUDA arrays cannot be read synchronously (reads wait for the device asynchronously)',
      {
        op: 'asnumpy',
        shapes: [src.shape],
        device: 'gpu',
        hint: 'use await x.data() (or copy to cpu(0) with copyTo and read there)',
      },
    );
  }

  async read(src: TBlob<number>): Promise<StorageArray> {
    const ctor = DType[src.dtype].storage;
    if (src.size === 0 || src.ptr === null) return new ctor(0);
    const rt = this.#deviceOf(src, 'asnumpy');
    const addon = this.#addon as CudaAddon;
    const bytes = src.size * DType[src.dtype].bytes;
    const p = rt.call(() => addon.read(rt.device, (src.ptr as number) + src.byteOffset, bytes), 'asnumpy');
    const buf = await p.catch((e: unknown) => {
      throw rt.failure(e, 'asnumpy');
    });
    return new ctor(buf, 0, src.size) as StorageArray;
  }

  copy(dst: TBlob<number>, src: TBlob<number>): void {
    if (dst.size !== src.size || dst.dtype !== src.dtype) {
      throw new MXNetError('copy needs equal dtype and size', {
        op: '_copyto',
        shapes: [src.shape, dst.shape],
        dtypes: [src.dtype, dst.dtype],
        device: 'gpu',
      });
    }
    if (dst.size === 0 || dst.ptr === null || src.ptr === null) return;
    const from = this.#deviceOf(src, '_copyto');
    const to = this.#deviceOf(dst, '_copyto');
    const bytes = src.size * DType[src.dtype].bytes;
    const s = src.ptr + src.byteOffset;
    const d = dst.ptr + dst.byteOffset;
    const addon = this.#addon as CudaAddon;
    if (from === to) from.copy(d, s, bytes);
    else to.call(() => addon.copyPeer(to.device, d, from.device, s, bytes), '_copyto');
  }

  /** Wait until every device has finished all work queued so far. */
  async sync(): Promise<void> {
    await Promise.all([...this.#runtimes.values()].map((rt) => rt.sync()));
  }

  dispose(): void {
    for (const rt of this.#runtimes.values()) rt.dispose();
    this.#runtimes.clear();
    this.#current = null;
  }
}

/**
 * Load the CUDA driver, NVRTC and cuBLAS and make a backend serving gpu(0)…gpu(n-1). Fails with an
 * MXNetError saying what was found and what is missing (each library, the driver version, devices).
 */
export async function createCudaBackend(options: CudaBackendOptions = {}): Promise<CudaBackend> {
  const env = options.env ?? process.env;
  const addon = loadAddon();
  const libraries = (['driver', 'nvrtc', 'cublas'] as const).map((l) => loadLibrary(addon, l, env));
  const missing = libraries.filter((s) => s.loaded === null);
  if (missing.length > 0) throw missingLibrariesError(missing);
  let driverVersion: number;
  let count: number;
  try {
    driverVersion = addon.driverInit();
    count = addon.deviceCount();
  } catch (e) {
    throw cudaError(e, 'createCudaBackend', 'gpu');
  }
  if (driverVersion < MIN_DRIVER) {
    throw new MXNetError(
      `the NVIDIA driver supports CUDA ${versionText(driverVersion)}; cuda-native needs 12.0 or newer`,
      {
        op: 'createCudaBackend',
        device: 'gpu',
        hint: 'update the NVIDIA driver',
      },
    );
  }
  if (count === 0) {
    throw new MXNetError('the CUDA driver found no device', {
      op: 'createCudaBackend',
      device: 'gpu',
      hint: 'check nvidia-smi and CUDA_VISIBLE_DEVICES; use cpu(0)',
    });
  }
  const devices = Array.from({ length: count }, (_, i) => addon.deviceInfo(i));
  return new CudaBackend(addon, devices, driverVersion, options);
}

/** Register every cuda-native kernel into `registry` without a device (coverage listings, docs). */
export function describeCudaKernels(registry: OpRegistry): void {
  new CudaBackend(null).install(registry);
}
