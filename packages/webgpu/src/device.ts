/**
 * Adapter and device acquisition, the only place that knows where a `GPU` object comes from:
 * the caller's (`options.gpu`), the browser's `navigator.gpu`, or in Node the `webgpu` package
 * (Dawn), imported lazily so browsers and users without it never load it. Every way this can fail
 * (no WebGPU at all, no adapter, a device request refused) is an MXNetError saying what to do.
 *
 * The device is requested with the adapter's own buffer limits (the defaults cap storage bindings
 * at 128 MiB) and with `shader-f16` when the adapter has it, so float16 arrays can compute.
 */
import { MXNetError } from '@mx/base';

export interface AcquireOptions {
  /** A `GPU` object to use (navigator.gpu, or `create([])` from the `webgpu` package). */
  readonly gpu?: GPU;
  readonly powerPreference?: GPUPowerPreference;
  /** Ask for the fallback (software) adapter. */
  readonly forceFallbackAdapter?: boolean;
  /** Dawn toggles/flags passed to the `webgpu` package's `create()` in Node. */
  readonly dawnFlags?: readonly string[];
}

/** What the adapter says about itself (`fallback`: a software adapter such as SwiftShader). */
export interface AdapterSummary {
  readonly vendor: string;
  readonly architecture: string;
  readonly description: string;
  readonly fallback: boolean;
}

export interface Acquired {
  /**
   * The GPU object the device came from. Keep it reachable as long as the device: Dawn's instance
   * behind it runs the device's callbacks, and once it was garbage-collected Node crashed in
   * mapAsync (mutex assertions, SIGSEGV) in about half the runs.
   */
  readonly gpu: GPU;
  readonly adapter: GPUAdapter;
  readonly device: GPUDevice;
  readonly info: AdapterSummary;
  readonly f16: boolean;
}

const HINT_NODE =
  "in Node install the 'webgpu' package (Dawn) and a Vulkan driver; without a GPU, Chromium's SwiftShader works: " +
  'VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json LD_LIBRARY_PATH=/usr/lib/chromium node --no-turbofan …';

/** Find a `GPU` object: the given one, `navigator.gpu`, or the `webgpu` package in Node. */
export async function findGpu(options: AcquireOptions = {}): Promise<GPU> {
  if (options.gpu !== undefined) return options.gpu;
  const nav = (globalThis as { navigator?: { gpu?: GPU } }).navigator;
  if (nav?.gpu !== undefined) return nav.gpu;
  const proc = (globalThis as { process?: { versions?: { node?: string } } }).process;
  if (proc?.versions?.node === undefined) {
    throw new MXNetError('WebGPU is not available in this browser (navigator.gpu is undefined)', {
      op: 'createWebGpuBackend',
      device: 'gpu(0)',
      hint: 'use a browser with WebGPU enabled (Chrome/Edge 113+, or --enable-unsafe-webgpu), or the cpu-wasm backend',
    });
  }
  let mod: { create(flags: string[]): GPU; globals?: Record<string, unknown> };
  try {
    const name = 'webgpu';
    mod = (await import(/* @vite-ignore */ name)) as typeof mod;
  } catch (e) {
    throw new MXNetError("WebGPU in Node needs the 'webgpu' package (Dawn), which could not be loaded", {
      op: 'createWebGpuBackend',
      device: 'gpu(0)',
      cause: e,
      hint: `npm i webgpu@0.6.2; ${HINT_NODE}`,
    });
  }
  // Dawn's GPUBufferUsage / GPUMapMode / … constants, which browsers define globally.
  for (const [k, v] of Object.entries(mod.globals ?? {})) {
    if (!(k in globalThis)) (globalThis as Record<string, unknown>)[k] = v;
  }
  return mod.create([...(options.dawnFlags ?? [])]);
}

/** An adapter and a device with the adapter's buffer limits. */
export async function acquireDevice(options: AcquireOptions = {}): Promise<Acquired> {
  const gpu = await findGpu(options);
  let adapter: GPUAdapter | null;
  try {
    adapter = await gpu.requestAdapter({
      powerPreference: options.powerPreference,
      forceFallbackAdapter: options.forceFallbackAdapter,
    });
  } catch (e) {
    adapter = null;
    void e;
  }
  if (adapter === null) {
    throw new MXNetError('no WebGPU adapter was found', {
      op: 'createWebGpuBackend',
      device: 'gpu(0)',
      hint: `check that a GPU driver is installed (Vulkan, Metal or D3D12); ${HINT_NODE}`,
    });
  }
  const f16 = adapter.features.has('shader-f16');
  const lim = adapter.limits;
  let device: GPUDevice;
  try {
    device = await adapter.requestDevice({
      requiredFeatures: f16 ? ['shader-f16'] : [],
      requiredLimits: {
        maxBufferSize: lim.maxBufferSize,
        maxStorageBufferBindingSize: lim.maxStorageBufferBindingSize,
        maxStorageBuffersPerShaderStage: lim.maxStorageBuffersPerShaderStage,
        maxComputeWorkgroupStorageSize: lim.maxComputeWorkgroupStorageSize,
        maxComputeInvocationsPerWorkgroup: lim.maxComputeInvocationsPerWorkgroup,
        maxComputeWorkgroupSizeX: lim.maxComputeWorkgroupSizeX,
        maxComputeWorkgroupSizeY: lim.maxComputeWorkgroupSizeY,
      },
    });
  } catch (e) {
    throw new MXNetError('the WebGPU adapter refused to create a device', {
      op: 'createWebGpuBackend',
      device: 'gpu(0)',
      cause: e,
      hint: 'another program may hold the GPU, or its limits are too small; try again or use cpu-wasm',
    });
  }
  const ai = (adapter as { info?: GPUAdapterInfo & { isFallbackAdapter?: boolean } }).info;
  const legacyFallback = (adapter as { isFallbackAdapter?: boolean }).isFallbackAdapter;
  return {
    gpu,
    adapter,
    device,
    f16,
    info: {
      vendor: ai?.vendor ?? '',
      architecture: ai?.architecture ?? '',
      description: ai?.description ?? '',
      fallback: ai?.isFallbackAdapter ?? legacyFallback ?? ai?.architecture === 'swiftshader',
    },
  };
}
