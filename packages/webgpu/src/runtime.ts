/**
 * WebGpuRuntime: one GPUDevice and everything kernels share on it — the command batch, the uniform
 * ring, the pipeline cache, readback, host writes and error handling. Kernels never touch the
 * device's queue directly; they call `dispatch`, so batching and error attribution live here.
 *
 * Batching: dispatches go into one command encoder and compute pass and are submitted together when
 * the batch is full, before anything that must observe or precede them (a readback, a host write,
 * destroying a buffer), and at the end of the current JavaScript task (a microtask). A kernel is
 * "done" for the engine once encoded: WebGPU executes a queue in order, so a later op, copy or read
 * sees its results — the same contract as a CUDA stream in MXNet.
 *
 * Uniforms: each dispatch's parameters (u32 words: shapes, strides, offsets, scalars as bits) get a
 * 256-byte-aligned slot of one host staging area, written to one uniform buffer right before the
 * batch is submitted. Reusing that buffer for the next batch is safe because queue operations run
 * in order.
 *
 * Errors (MXNet: a failing op's error surfaces when its outputs are read): WebGPU reports shader
 * and validation errors asynchronously. An op that uses a pipeline not yet known to be valid is
 * encoded in its own command buffer inside a validation error scope, and completes (engine
 * `onComplete`) when the scope resolves, with an MXNetError naming the op and the cause; batches
 * of known-good pipelines complete at once. So a bad shader fails its own op only — other arrays
 * and later ops keep working — and the broken pipeline is refused synchronously afterwards. A lost
 * device fails every later op, allocation and read with an MXNetError saying to create a new
 * backend.
 */
import { MXNetError } from '@mx/base';
import type { OpContext } from '@mx/ops';

const UNIFORM_ALIGN = 256;
const UNIFORM_BYTES = 64 * 1024;
const MAX_BATCH = 128;

/** A cached compute pipeline and whether the device has confirmed that it is valid. */
export interface PipelineEntry {
  readonly key: string;
  readonly pipeline: GPUComputePipeline;
  /** True once an op using it completed without a validation error. */
  validated: boolean;
  /** Set when creating or using it failed: later uses throw this. */
  broken?: MXNetError;
  /** Uniform words the shader declares (its binding size is that, rounded up to 16 bytes). */
  readonly paramWords: number;
}

/** A compiled shader as the warm-up API stores and replays it. */
export interface ShaderSource {
  readonly key: string;
  readonly source: string;
  readonly paramWords: number;
}

/** Workgroup counts for `n` invocations of `wg` threads: x ≤ 65535, overflow into y. */
export function grid1d(n: number, wg: number, maxPerDim = 65535): [number, number, number] {
  const groups = Math.max(1, Math.ceil(n / wg));
  if (groups <= maxPerDim) return [groups, 1, 1];
  const y = Math.ceil(groups / maxPerDim);
  return [Math.ceil(groups / y), y, 1];
}

export class WebGpuRuntime {
  readonly device: GPUDevice;
  readonly limits: GPUSupportedLimits;
  /** `shader-f16` is enabled: float16 arrays compute. */
  readonly f16: boolean;
  readonly #pipelines = new Map<string, PipelineEntry>();
  readonly #sources = new Map<string, ShaderSource>();
  #encoder: GPUCommandEncoder | null = null;
  #pass: GPUComputePassEncoder | null = null;
  #dispatches = 0;
  #flushScheduled = false;
  readonly #uniformHost = new ArrayBuffer(UNIFORM_BYTES);
  #uniformUsed = 0;
  readonly #uniformBuffer: GPUBuffer;
  /** Buffers to destroy once the current batch is submitted. */
  #afterSubmit: GPUBuffer[] = [];
  /** The op being encoded (runOp), and whether it is in its own validation scope. */
  #opName = '';
  #opScoped = false;
  #opPipelines: PipelineEntry[] = [];
  #lost: MXNetError | null = null;
  readonly #uncaptured: string[] = [];
  /** Dispatches and submits so far (tests, profiling). */
  readonly stats = { dispatches: 0, submits: 0, pipelines: 0 };

  /** The GPU object (Dawn's instance in Node) the device came from, held for the device's lifetime. */
  readonly gpu: GPU | null;

  constructor(device: GPUDevice, f16: boolean, gpu: GPU | null = null) {
    this.gpu = gpu;
    this.device = device;
    this.limits = device.limits;
    this.f16 = f16;
    this.#uniformBuffer = device.createBuffer({
      size: UNIFORM_BYTES,
      usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST,
    });
    device.lost.then((info) => {
      this.#lost ??= new MXNetError(`the WebGPU device was lost (${info.reason}: ${info.message})`, {
        op: 'webgpu',
        device: 'gpu(0)',
        hint: 'arrays on gpu(0) are gone; create a new backend and runtime (createWebGpuBackend) and copy data again',
      });
    });
    device.addEventListener('uncapturederror', (ev) => {
      const e = (ev as GPUUncapturedErrorEvent).error;
      if (this.#uncaptured.length < 16) this.#uncaptured.push(e.message);
    });
  }

  /** The device-lost error, or null while the device works. */
  get lost(): MXNetError | null {
    return this.#lost;
  }

  /** Throw when the device is gone. */
  checkAlive(op: string): void {
    if (this.#lost !== null) {
      throw new MXNetError(this.#lost.reason, {
        op,
        device: 'gpu(0)',
        hint: this.#lost.hint,
        cause: this.#lost,
      });
    }
  }

  /** Errors WebGPU reported outside any scope since the last call (cleared). */
  takeUncapturedErrors(): string[] {
    return this.#uncaptured.splice(0);
  }

  // ---- pipelines -------------------------------------------------------------------------------

  /**
   * The pipeline for `key`, compiling `source()` (WGSL with entry point `main`) on first use.
   * `paramWords` is the number of u32 uniform words the shader's `P` declares.
   */
  pipeline(key: string, source: () => string, paramWords: number): PipelineEntry {
    let e = this.#pipelines.get(key);
    if (e === undefined) {
      this.checkAlive(this.#opName || 'pipeline');
      // Ops encoded so far are known-good: submit them before anything can fail validation.
      this.#enterScope();
      const code = source();
      const module = this.device.createShaderModule({ code, label: key });
      const pipeline = this.device.createComputePipeline({
        layout: 'auto',
        compute: { module, entryPoint: 'main' },
        label: key,
      });
      e = { key, pipeline, validated: false, paramWords: Math.max(4, Math.ceil(paramWords / 4) * 4) };
      this.#pipelines.set(key, e);
      this.#sources.set(key, { key, source: code, paramWords });
      this.stats.pipelines++;
    }
    if (e.broken !== undefined) {
      throw new MXNetError(e.broken.reason, {
        op: this.#opName || key,
        device: 'gpu(0)',
        cause: e.broken,
        hint: 'this kernel failed to compile on this device; use cpu(0) for this op',
      });
    }
    if (!e.validated) {
      this.#enterScope();
      this.#opPipelines.push(e);
    }
    return e;
  }

  /**
   * Every shader compiled so far that did not fail (key, WGSL, uniform words): save it (e.g. as JSON) after a first
   * run and pass it to `warmUp` at the next start, so compiling happens up front and in parallel.
   */
  shaders(): ShaderSource[] {
    return [...this.#sources.values()].filter((s) => this.#pipelines.get(s.key)?.broken === undefined);
  }

  /**
   * Compile pipelines ahead of use (shader warm-up, `createComputePipelineAsync`); resolves with
   * the keys that failed to compile (those are compiled, and reported, again on first use).
   */
  async warmUp(items: readonly ShaderSource[]): Promise<string[]> {
    const failed: string[] = [];
    await Promise.all(
      items.map(async ({ key, source, paramWords }) => {
        if (this.#pipelines.has(key)) return;
        try {
          const module = this.device.createShaderModule({ code: source, label: key });
          const pipeline = await this.device.createComputePipelineAsync({
            layout: 'auto',
            compute: { module, entryPoint: 'main' },
            label: key,
          });
          if (!this.#pipelines.has(key)) {
            this.#sources.set(key, { key, source, paramWords });
            this.#pipelines.set(key, {
              key,
              pipeline,
              validated: true,
              paramWords: Math.max(4, Math.ceil(paramWords / 4) * 4),
            });
            this.stats.pipelines++;
          }
        } catch {
          failed.push(key);
        }
      }),
    );
    return failed;
  }

  /** Pipelines compiled so far. */
  get pipelineCount(): number {
    return this.#pipelines.size;
  }

  #enterScope(): void {
    if (this.#opScoped || this.#opName === '') return;
    this.flush();
    this.device.pushErrorScope('validation');
    this.#opScoped = true;
  }

  // ---- ops -------------------------------------------------------------------------------------

  /**
   * Run one op's encoding (`body`) and complete it: at once when every pipeline it used is known
   * to be valid, else after its own command buffer passed validation. Exceptions from `body`
   * complete the op with that error.
   */
  runOp(name: string, ctx: OpContext, body: () => void): void {
    const done = ctx.onComplete;
    const complete = (err?: unknown): void => {
      if (done !== undefined) done(err);
      else if (err !== undefined) throw err;
    };
    if (this.#lost !== null) {
      complete(new MXNetError(this.#lost.reason, { op: name, device: 'gpu(0)', hint: this.#lost.hint }));
      return;
    }
    this.#opName = name;
    this.#opScoped = false;
    this.#opPipelines = [];
    let thrown: unknown;
    try {
      body();
    } catch (e) {
      thrown = e;
    }
    const scoped = this.#opScoped;
    const used = this.#opPipelines;
    this.#opName = '';
    this.#opScoped = false;
    this.#opPipelines = [];
    if (!scoped) {
      complete(thrown);
      return;
    }
    this.flush();
    this.device.popErrorScope().then(
      (err) => {
        if (err === null) {
          for (const e of used) e.validated = true;
          complete(thrown);
          return;
        }
        const error = new MXNetError(`WebGPU rejected the kernel: ${err.message}`, {
          op: name,
          device: 'gpu(0)',
          hint: 'a shader failed to compile or a dispatch was invalid on this device; use cpu(0) for this op',
        });
        for (const e of used) if (!e.validated) e.broken = error;
        complete(error);
      },
      (e: unknown) => complete(e),
    );
  }

  /**
   * Encode one dispatch: `params` as the uniform block (binding 0), `buffers` as the storage
   * bindings 1..n in order, `groups` workgroups.
   */
  dispatch(
    entry: PipelineEntry,
    buffers: readonly GPUBuffer[],
    params: Uint32Array | readonly number[],
    groups: readonly [number, number?, number?],
  ): void {
    const words = entry.paramWords;
    const bytes = Math.ceil((words * 4) / UNIFORM_ALIGN) * UNIFORM_ALIGN;
    if (this.#uniformUsed + bytes > UNIFORM_BYTES || this.#dispatches >= MAX_BATCH) this.flush();
    const at = this.#uniformUsed;
    const u = new Uint32Array(this.#uniformHost, at, words);
    u.fill(0);
    for (let i = 0; i < params.length && i < words; i++) u[i] = (params[i] as number) >>> 0;
    this.#uniformUsed += bytes;
    const entries: GPUBindGroupEntry[] = [
      { binding: 0, resource: { buffer: this.#uniformBuffer, offset: at, size: words * 4 } },
    ];
    for (let i = 0; i < buffers.length; i++)
      entries.push({ binding: i + 1, resource: { buffer: buffers[i] as GPUBuffer } });
    const bindGroup = this.device.createBindGroup({ layout: entry.pipeline.getBindGroupLayout(0), entries });
    const pass = this.#computePass();
    pass.setPipeline(entry.pipeline);
    pass.setBindGroup(0, bindGroup);
    pass.dispatchWorkgroups(groups[0], groups[1] ?? 1, groups[2] ?? 1);
    this.#dispatches++;
    this.stats.dispatches++;
  }

  #commandEncoder(): GPUCommandEncoder {
    if (this.#encoder === null) {
      this.#encoder = this.device.createCommandEncoder();
      if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        queueMicrotask(() => {
          this.#flushScheduled = false;
          // An op being encoded across this point is flushed by its own end.
          if (this.#opName === '') this.flush();
        });
      }
    }
    return this.#encoder;
  }

  #computePass(): GPUComputePassEncoder {
    if (this.#pass === null) this.#pass = this.#commandEncoder().beginComputePass();
    return this.#pass;
  }

  /** The batch's encoder outside a compute pass (for buffer copies). */
  encoder(): GPUCommandEncoder {
    if (this.#pass !== null) {
      this.#pass.end();
      this.#pass = null;
    }
    return this.#commandEncoder();
  }

  /** Submit the current batch. */
  flush(): void {
    if (this.#encoder === null) return;
    if (this.#pass !== null) {
      this.#pass.end();
      this.#pass = null;
    }
    if (this.#uniformUsed > 0) {
      this.device.queue.writeBuffer(this.#uniformBuffer, 0, this.#uniformHost, 0, this.#uniformUsed);
    }
    this.device.queue.submit([this.#encoder.finish()]);
    this.stats.submits++;
    this.#encoder = null;
    this.#dispatches = 0;
    this.#uniformUsed = 0;
    for (const b of this.#afterSubmit) b.destroy();
    this.#afterSubmit = [];
  }

  /** Destroy `buf` once the work encoded so far no longer needs it. */
  release(buf: GPUBuffer): void {
    if (this.#encoder === null) buf.destroy();
    else this.#afterSubmit.push(buf);
  }

  // ---- memory ----------------------------------------------------------------------------------

  /** A storage buffer of `size` bytes (rounded up to 4), or an MXNetError over the device limit. */
  createBuffer(size: number): GPUBuffer {
    this.checkAlive('alloc');
    const max = this.maxBufferBytes;
    if (size > max) {
      throw new MXNetError(
        `cannot allocate ${size} bytes on gpu(0): the device's largest buffer is ${max} bytes`,
        {
          op: 'alloc',
          device: 'gpu(0)',
          hint: 'split the array (smaller batch) or keep it on cpu(0)',
        },
      );
    }
    return this.device.createBuffer({
      size: Math.max(4, Math.ceil(size / 4) * 4),
      usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST,
    });
  }

  /** Largest buffer a kernel can bind. */
  get maxBufferBytes(): number {
    return Math.min(this.limits.maxBufferSize, this.limits.maxStorageBufferBindingSize);
  }

  /**
   * Write host bytes into `buf` at `offset`, ordered after everything encoded so far. Both offset
   * and length must be multiples of 4 (callers handle 1- and 2-byte dtypes' fringes).
   */
  writeBuffer(buf: GPUBuffer, offset: number, data: ArrayBufferView): void {
    this.checkAlive('write');
    this.flush();
    this.device.queue.writeBuffer(buf, offset, data.buffer as ArrayBuffer, data.byteOffset, data.byteLength);
  }

  /** Copy `size` bytes (multiples of 4, offsets too) between buffers, in order with dispatches. */
  copyBuffer(src: GPUBuffer, srcOffset: number, dst: GPUBuffer, dstOffset: number, size: number): void {
    this.encoder().copyBufferToBuffer(src, srcOffset, dst, dstOffset, size);
  }

  /** Read `size` bytes from `buf` at `offset` (any alignment) after everything encoded so far. */
  async readBuffer(buf: GPUBuffer, offset: number, size: number, op = 'read'): Promise<Uint8Array> {
    this.checkAlive(op);
    const start = offset - (offset % 4);
    const end = Math.ceil((offset + size) / 4) * 4;
    const staging = this.device.createBuffer({
      size: Math.max(4, end - start),
      usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
    });
    if (end > start) this.copyBuffer(buf, start, staging, 0, end - start);
    this.flush();
    try {
      await staging.mapAsync(GPUMapMode.READ);
    } catch (e) {
      staging.destroy();
      this.checkAlive(op);
      const errs = this.takeUncapturedErrors();
      throw new MXNetError(`reading gpu(0) memory failed${errs.length ? `: ${errs.join('; ')}` : ''}`, {
        op,
        device: 'gpu(0)',
        cause: e,
      });
    }
    const out = new Uint8Array(size);
    out.set(new Uint8Array(staging.getMappedRange(), offset - start, size));
    staging.unmap();
    staging.destroy();
    return out;
  }

  /** Wait for all submitted work (tests, benchmarks). */
  async sync(): Promise<void> {
    this.flush();
    await this.device.queue.onSubmittedWorkDone();
  }

  dispose(): void {
    this.flush();
    this.#uniformBuffer.destroy();
    this.device.destroy();
  }
}
