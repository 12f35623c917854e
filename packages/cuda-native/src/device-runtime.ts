/**
 * DeviceRuntime: the CudaRuntime of one real device. Kernels are compiled with NVRTC on first use
 * (nvrtc.ts caches cubins on disk) and loaded once; launches, GEMMs, fills and copies are queued on
 * the device's one stream, so an op completes when its work is queued (MXNet's GPU engine) and
 * reads wait for the stream (the addon waits on libuv's pool, never on the event loop).
 *
 * Per-op scratch (`temp`) is a bump allocator in one workspace buffer: every op on the device runs
 * in stream order, so the next op may reuse the same bytes. A workspace that must grow is replaced;
 * the old one is freed only after the stream has passed it (at the next `sync`).
 *
 * A sticky CUDA error (illegal address, failed launch) marks the device lost: later ops on it fail
 * at once with that cause, other devices and cpu(0) keep working.
 */
import { MXNetError } from '@mx/base';
import type { OpContext } from '@mx/ops';
import type { CudaAddon, CudaDeviceInfo } from './addon.js';
import type { CudaSource, KernelArg } from './cuda-c.js';
import { cudaError, isSticky } from './errors.js';
import type { KernelCompiler } from './nvrtc.js';
import { type CudaRuntime, type Dim3, type GemmCall, gemmOperands, packArgs } from './runtime.js';

/** cudaDataType of each GEMM dtype (library_types.h). */
const DATA_TYPE: Readonly<Record<string, number>> = { float32: 0, float64: 1, float16: 2, bfloat16: 14 };
/** cublasComputeType_t: 32F, 32F_FAST_TF32, 64F. */
const COMPUTE_32F = 68;
const COMPUTE_32F_TF32 = 77;
const COMPUTE_64F = 70;

export interface DeviceRuntimeOptions {
  /** Let cuBLAS use TF32 tensor cores for float32 GEMMs (faster, ~10-bit mantissa products). */
  readonly tf32: boolean;
}

export class DeviceRuntime implements CudaRuntime {
  readonly device: number;
  readonly arch: number;
  readonly info: CudaDeviceInfo;
  readonly #addon: CudaAddon;
  readonly #compiler: KernelCompiler;
  readonly #functions = new Map<string, number>();
  readonly #bySource = new WeakMap<CudaSource, number>();
  readonly #tf32: boolean;
  #lost: MXNetError | null = null;
  #op = '';
  #workspace = { ptr: 0, size: 0 };
  #used = 0;
  #retired: number[] = [];
  /** Set by Storage (through the allocator): reclaims pooled memory; true when a retry may succeed. */
  exhausted: ((bytes: number) => boolean) | null = null;

  constructor(
    addon: CudaAddon,
    device: number,
    info: CudaDeviceInfo,
    compiler: KernelCompiler,
    options: DeviceRuntimeOptions,
  ) {
    this.#addon = addon;
    this.device = device;
    this.info = info;
    this.arch = info.major * 10 + info.minor;
    this.#compiler = compiler;
    this.#tf32 = options.tf32;
  }

  get label(): string {
    return `gpu(${this.device})`;
  }

  /** The device-lost error, or null while the device works. */
  get lost(): MXNetError | null {
    return this.#lost;
  }

  /** Throw the device-lost error (naming `op`) if the device was lost. */
  checkAlive(op: string): void {
    if (this.#lost !== null) {
      throw new MXNetError(this.#lost.reason, {
        op,
        device: this.label,
        hint: this.#lost.hint,
        cause: this.#lost,
      });
    }
  }

  /** Run `f` (an addon call), turning failures into MXNetErrors and sticky ones into a lost device. */
  call<T>(f: () => T, op = this.#op || 'cuda'): T {
    this.checkAlive(op);
    try {
      return f();
    } catch (e) {
      const err = cudaError(e, op, this.label);
      if (isSticky(e)) {
        this.#lost = new MXNetError(`the CUDA device ${this.label} was lost: ${err.reason}`, {
          op,
          device: this.label,
          hint: 'the device is unusable until the process restarts; arrays on cpu(0) and other devices still work',
          cause: e,
        });
      }
      throw err;
    }
  }

  launch(src: CudaSource, grid: Dim3, block: Dim3, args: readonly KernelArg[], sharedBytes = 0): void {
    // Generators memoize their sources, so the object finds its function without hashing kilobytes
    // of code per launch; a new object with known text falls back to the entry-and-code key (one
    // source may hold several kernels).
    let fn = this.#bySource.get(src);
    if (fn === undefined) {
      const key = `${src.entry}\n${src.code}`;
      fn = this.#functions.get(key);
      if (fn === undefined) {
        const cubin = this.#compiler.compile(src, this.#op || src.entry);
        fn = this.call(() => this.#addon.moduleLoad(this.device, cubin, src.entry));
        this.#functions.set(key, fn);
      }
      this.#bySource.set(src, fn);
    }
    const { bytes, offsets } = packArgs(args);
    const f = fn;
    this.call(() =>
      this.#addon.launch(
        this.device,
        f,
        grid[0],
        grid[1] ?? 1,
        grid[2] ?? 1,
        block[0],
        block[1] ?? 1,
        block[2] ?? 1,
        sharedBytes,
        bytes,
        offsets,
      ),
    );
  }

  gemm(g: GemmCall): void {
    const dataType = DATA_TYPE[g.dtype];
    if (dataType === undefined) {
      throw new MXNetError(`cuBLAS GEMM does not take ${g.dtype}`, { op: this.#op, device: this.label });
    }
    const compute =
      g.dtype === 'float64'
        ? COMPUTE_64F
        : this.#tf32 && g.dtype === 'float32'
          ? COMPUTE_32F_TF32
          : COMPUTE_32F;
    this.call(() => this.#addon.gemm(this.device, ...gemmOperands(g), dataType, compute));
  }

  memset(ptr: number, value: number, bytes: number): void {
    if (bytes > 0) this.call(() => this.#addon.memset(this.device, ptr, value, bytes));
  }

  copy(dst: number, src: number, bytes: number): void {
    if (bytes > 0 && dst !== src) this.call(() => this.#addon.copy(this.device, dst, src, bytes));
  }

  /** Device memory straight from the driver, trimming the pool (Storage's handler) once on failure. */
  alloc(bytes: number, what: string): number {
    let p = this.call(() => this.#addon.memAlloc(this.device, bytes));
    if (p === null && this.exhausted?.(bytes) === true)
      p = this.call(() => this.#addon.memAlloc(this.device, bytes));
    if (p === null) {
      const info = this.call(() => this.#addon.memInfo(this.device));
      throw new MXNetError(
        `out of device memory: ${what} needs ${bytes} bytes; ${info.free} of ${info.total} bytes are free after trimming the pool`,
        {
          op: this.#op || what,
          device: this.label,
          hint: 'free arrays (dispose, scopes) or use a smaller batch',
        },
      );
    }
    return p;
  }

  temp(bytes: number): number {
    const need = Math.ceil(Math.max(1, bytes) / 256) * 256;
    if (this.#used + need > this.#workspace.size) {
      const size = Math.max(need + this.#used, 2 * this.#workspace.size, 1 << 20);
      const ptr = this.alloc(size, 'temporary workspace');
      if (this.#workspace.size > 0) this.#retired.push(this.#workspace.ptr);
      // Earlier scratch of this op stays valid in the retired buffer; new requests start fresh.
      this.#workspace = { ptr, size };
      this.#used = 0;
    }
    const p = this.#workspace.ptr + this.#used;
    this.#used += need;
    return p;
  }

  upload(data: ArrayBufferView): number {
    const p = this.temp(data.byteLength);
    if (data.byteLength > 0) this.call(() => this.#addon.write(this.device, p, data));
    return p;
  }

  #checks: { ptr: number; bytes: number; verify: (data: Uint8Array) => Error | undefined }[] = [];

  check(bytes: number, verify: (data: Uint8Array) => Error | undefined): number {
    const ptr = this.temp(bytes);
    this.#checks.push({ ptr, bytes, verify });
    return ptr;
  }

  runOp(name: string, ctx: OpContext, body: () => void): void {
    const done = ctx.onComplete;
    const complete = (err?: unknown): void => {
      if (done !== undefined) done(err);
      else if (err !== undefined) throw err;
    };
    if (this.#lost !== null) {
      complete(new MXNetError(this.#lost.reason, { op: name, device: this.label, hint: this.#lost.hint }));
      return;
    }
    this.#op = name;
    this.#used = 0;
    this.#checks = [];
    let thrown: unknown;
    try {
      body();
    } catch (e) {
      thrown = cudaError(e, name, this.label);
    } finally {
      this.#op = '';
    }
    const checks = this.#checks;
    this.#checks = [];
    if (thrown !== undefined || checks.length === 0) {
      complete(thrown);
      return;
    }
    // The reads are queued behind this op's kernels and before any later op's use of the scratch.
    let reads: Promise<ArrayBuffer>[];
    try {
      reads = checks.map((c) => this.call(() => this.#addon.read(this.device, c.ptr, c.bytes), name));
    } catch (e) {
      complete(e);
      return;
    }
    Promise.all(reads).then(
      (bufs) => {
        let verdict: Error | undefined;
        bufs.forEach((b, i) => {
          verdict ??= checks[i]?.verify(new Uint8Array(b));
        });
        complete(verdict);
      },
      (e: unknown) => complete(this.failure(e, name)),
    );
  }

  /** Resolves when all work queued so far on the device is done; frees retired workspaces. */
  async sync(): Promise<void> {
    const retired = this.#retired;
    this.#retired = [];
    await this.#addon.synchronize(this.device).catch((e: unknown) => {
      throw this.failure(e, 'sync');
    });
    for (const p of retired) this.call(() => this.#addon.memFree(this.device, p), 'sync');
  }

  /** An asynchronous failure (a read's or sync's wait) as an MXNetError; sticky ones mark the device lost. */
  failure(e: unknown, op: string): MXNetError {
    try {
      this.call(() => {
        throw e;
      }, op);
    } catch (err) {
      return err as MXNetError;
    }
    return cudaError(e, op, this.label);
  }

  dispose(): void {
    for (const p of [...this.#retired, ...(this.#workspace.size > 0 ? [this.#workspace.ptr] : [])]) {
      try {
        this.#addon.memFree(this.device, p);
      } catch {
        // a lost device cannot free; the process exit releases it
      }
    }
    this.#retired = [];
    this.#workspace = { ptr: 0, size: 0 };
  }
}
