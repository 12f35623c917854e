/**
 * RenderRuntime: a CudaRuntime with no device. It records the source of every kernel a family
 * queues, checks each launch against the kernel's `extern "C"` signature (argument count and
 * kinds, grid and block limits), and hands out fake device addresses, so that on machines without
 * a GPU (CI) every op's kernels can be generated from the conformance cases and then compiled with
 * nvcc or NVRTC. Nothing it returns is data: it is for checking code generation only.
 */
import { MXNetError } from '@mx/base';
import type { OpContext } from '@mx/ops';
import { type CudaSource, hashText, type KernelArg } from './cuda-c.js';
import { type CudaRuntime, type Dim3, type GemmCall, signatureOf } from './runtime.js';

/** One recorded launch. */
export interface RenderedLaunch {
  readonly op: string;
  readonly source: CudaSource;
  readonly grid: Dim3;
  readonly block: Dim3;
  readonly args: readonly KernelArg[];
}

export class RenderRuntime implements CudaRuntime {
  readonly device = 0;
  readonly arch: number;
  /** Distinct sources seen, by code hash. */
  readonly sources = new Map<string, { source: CudaSource; ops: Set<string> }>();
  readonly launches: RenderedLaunch[] = [];
  readonly gemms: { op: string; call: GemmCall }[] = [];
  /** Launch problems found (wrong arguments for the signature, bad grid): op: message. */
  readonly problems: string[] = [];
  #op = '';
  #temp = 0x7f0000000000;

  constructor(arch = 90) {
    this.arch = arch;
  }

  launch(src: CudaSource, grid: Dim3, block: Dim3, args: readonly KernelArg[], _sharedBytes?: number): void {
    const key = hashText(src.code);
    let entry = this.sources.get(key);
    if (entry === undefined) {
      entry = { source: src, ops: new Set() };
      this.sources.set(key, entry);
    }
    entry.ops.add(this.#op);
    const sig = signatureOf(src.code, src.entry);
    if (typeof sig === 'string') this.problems.push(`${this.#op}: ${sig}`);
    else if (sig.length !== args.length || sig.some((t, i) => t !== args[i]?.t)) {
      this.problems.push(
        `${this.#op}: ${src.entry} takes (${sig.join(', ')}) but was launched with (${args.map((a) => a.t).join(', ')})`,
      );
    }
    const threads = (block[0] ?? 1) * (block[1] ?? 1) * (block[2] ?? 1);
    if (threads < 1 || threads > 1024) this.problems.push(`${this.#op}: block of ${threads} threads`);
    if (
      (grid[0] ?? 1) < 1 ||
      (grid[1] ?? 1) > 65535 ||
      (grid[2] ?? 1) > 65535 ||
      (grid[0] ?? 1) > 2 ** 31 - 1
    ) {
      this.problems.push(`${this.#op}: grid ${grid.join('x')} out of range`);
    }
    this.launches.push({ op: this.#op, source: src, grid, block, args });
  }

  gemm(call: GemmCall): void {
    // cuBLAS's argument rules (CUBLAS_STATUS_INVALID_VALUE otherwise), column-major.
    const rowsA = call.transA ? call.k : call.m;
    const rowsB = call.transB ? call.n : call.k;
    const bad = [
      [call.lda < Math.max(1, rowsA), `lda ${call.lda} < ${rowsA}`],
      [call.ldb < Math.max(1, rowsB), `ldb ${call.ldb} < ${rowsB}`],
      [call.ldc < Math.max(1, call.m), `ldc ${call.ldc} < ${call.m}`],
      [call.m < 0 || call.n < 0 || call.k < 0 || call.batch < 0, 'negative size'],
    ].filter(([b]) => b);
    for (const [, why] of bad) this.problems.push(`${this.#op}: cuBLAS GEMM ${why}`);
    this.gemms.push({ op: this.#op, call });
  }

  memset(_ptr: number, _value: number, _bytes: number): void {}

  copy(_dst: number, _src: number, _bytes: number): void {}

  temp(bytes: number): number {
    const p = this.#temp;
    this.#temp += Math.ceil(Math.max(1, bytes) / 256) * 256;
    return p;
  }

  upload(data: ArrayBufferView): number {
    return this.temp(data.byteLength);
  }

  /** Checks requested (their verdicts are never read: there is no device). */
  checks = 0;

  check(bytes: number, _verify: (data: Uint8Array) => Error | undefined): number {
    this.checks++;
    return this.temp(bytes);
  }

  runOp(name: string, ctx: OpContext, body: () => void): void {
    this.#op = name;
    try {
      body();
    } catch (e) {
      if (ctx.onComplete === undefined) throw e;
      ctx.onComplete(e instanceof MXNetError ? e : e);
      return;
    } finally {
      this.#op = '';
    }
    ctx.onComplete?.();
  }
}
