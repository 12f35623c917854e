/**
 * Test helper: run the generated CUDA C of golden cases on the host, without a GPU, and compare the
 * results with the cases' expected outputs (and in-place inputs). The sources are compiled with
 * g++ after a host prelude that maps the device intrinsics the init and optimizer families use
 * (`__fmul_rn`, `__umulhi`, half conversions, ...) to exact IEEE host arithmetic (x86-64 SSE2: no
 * excess precision, no FMA contraction). Kernels run as CUDA would run them, only slower: every
 * block of the grid in turn, its threads as real threads, `__syncthreads` a barrier of the block,
 * `__shared__` storage shared by the block, warp shuffles and ballots exchanged between the 32
 * threads of a warp, atomics under a lock — so shared-memory reductions, scans and sorts are checked
 * too. (Only whole warps may shuffle, as on sm_70+ with full masks; that is how our kernels use them.)
 *
 * Device addresses are real host addresses: the driver maps one arena at ARENA_BASE, every blob,
 * scratch and upload is placed in it, and commands (write, launch, copy, memset, read) are replayed
 * in order from one binary file (host-program.ts). The replay runs twice, the second time with
 * blocks and threads in reverse order, and both must give the golden values: CUDA promises no
 * order, so a kernel where the last of several writers wins fails here as it would on a GPU.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DType, type DTypeName, type Shape } from '@mx/base';
import { type CaseArray, compareArrays, loadCases } from '@mx/conformance';
import { createOpRegistry, type Op, type OpContext, type OpRegistry, OpReq, type TBlob } from '@mx/ops';
import type { CudaSource, KernelArg } from '../cuda-c.js';
import { CUDA } from '../kernel.js';
import { RenderRuntime } from '../render-runtime.js';
import { type Dim3, type GemmCall, packArgs } from '../runtime.js';
import { ARENA_BASE, type Command, encode, program } from './host-program.js';
import { computeOnce } from './render.js';

/** A RenderRuntime whose addresses live in the host arena and whose work is recorded for replay. */
class EmuRuntime extends RenderRuntime {
  readonly commands: Command[] = [];
  readonly srcIndex = new Map<string, number>();
  readonly srcList: CudaSource[] = [];
  next = ARENA_BASE + 256;

  alloc(bytes: number): number {
    const p = this.next;
    this.next += Math.ceil(Math.max(1, bytes) / 256) * 256 + 256;
    return p;
  }
  override temp(bytes: number): number {
    return this.alloc(bytes);
  }
  override upload(data: ArrayBufferView): number {
    const p = this.alloc(data.byteLength);
    this.commands.push({
      c: 'write',
      addr: p,
      bytes: new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice(),
    });
    return p;
  }
  override copy(dst: number, src: number, n: number): void {
    this.commands.push({ c: 'copy', dst, src, n });
  }
  override memset(ptr: number, value: number, n: number): void {
    this.commands.push({ c: 'memset', ptr, value, n });
  }
  /** Deferred checks queued by the running case (read back after the replay). */
  pending: { addr: number; bytes: number; verify: (data: Uint8Array) => Error | undefined }[] = [];
  override check(bytes: number, verify: (data: Uint8Array) => Error | undefined): number {
    super.check(bytes, verify);
    const addr = this.alloc(bytes);
    this.pending.push({ addr, bytes, verify });
    return addr;
  }
  override gemm(call: GemmCall): void {
    super.gemm(call);
    this.commands.push({ c: 'gemm', call });
  }
  override launch(
    src: CudaSource,
    grid: Dim3,
    block: Dim3,
    args: readonly KernelArg[],
    shared?: number,
  ): void {
    super.launch(src, grid, block, args, shared);
    let i = this.srcIndex.get(src.code);
    if (i === undefined) {
      i = this.srcList.length;
      this.srcIndex.set(src.code, i);
      this.srcList.push(src);
    }
    this.commands.push({
      c: 'launch',
      src: i,
      grid: [grid[0], grid[1] ?? 1, grid[2] ?? 1],
      block: [block[0], block[1] ?? 1, block[2] ?? 1],
      args: packArgs(args).bytes,
    });
  }
}

interface Check {
  readonly what: string;
  readonly expected: CaseArray;
  readonly rtol: number;
  readonly atol: number;
  readonly bytes: number;
}

/** Outcome of emulating golden cases: mismatch messages and how many cases and arrays ran. */
export interface EmulationResult {
  readonly problems: string[];
  readonly cases: number;
  readonly arrays: number;
  /** Bad-input cases whose expected error the kernel gave (directly, or through a device check). */
  readonly errors: number;
}

/**
 * Run every valid golden case of `families` whose op passes `filter` through the kernels `install`
 * registers, on the host, and compare outputs and in-place inputs with the expected values.
 */
export interface EmulateOptions {
  /**
   * `add`: run with req add on outputs holding the expected values, and expect twice them (float
   * outputs; other outputs start at zero and expect the values) — checks the accumulate paths.
   */
  readonly req?: 'write' | 'add';
  /**
   * Run only the bad-input cases (for ops whose valid outputs the host cannot predict, such as the
   * samplers: a GPU draws another sequence than cpu(0)).
   */
  readonly errorsOnly?: boolean;
  /**
   * Model the device's `pow` as one ulp low (CUDA's double pow is within 2 ulp, not exact): for
   * checking that integer powers do not truncate a floating result. Float results of other ops may
   * then differ from exact ones in their last bit, so use it on the power ops.
   */
  readonly powLow?: boolean;
}

/** `e` doubled (float dtypes; the storage class holds raw bits for 16-bit floats, so those stay). */
function doubled(e: CaseArray): CaseArray {
  if (e.dtype !== 'float32' && e.dtype !== 'float64') return e;
  const d = e.data as Float32Array | Float64Array;
  return { ...e, data: d.map((v) => v * 2) };
}

/** The resources `op` requests, random ones as a fixed generator (ops draw their keys from it). */
function resources(op: Op, attrs: ReturnType<Op['parseParams']>): OpContext['requested'] {
  let seed = 7;
  const gen = { nextUint32: () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) };
  return op.resourceRequest(attrs).map(() => ({ generator: gen, stream: () => gen, numStreams: 1 }));
}

export function emulateCases(
  families: readonly string[],
  install: (registry: OpRegistry, host: { rt: RenderRuntime }) => void,
  filter: (op: string) => boolean,
  options: EmulateOptions = {},
): EmulationResult {
  const add = options.req === 'add';
  const rt = new EmuRuntime();
  const registry = createOpRegistry();
  install(registry, { rt });
  const problems: string[] = [];
  const checks: Check[] = [];
  let cases = 0;
  const blob = (shape: Shape, dtype: DTypeName, data?: ArrayBufferView): TBlob<number> => {
    const size = shape.reduce((a, b) => a * b, 1);
    const bytes = size * DType[dtype].bytes;
    const ptr = size === 0 ? null : rt.alloc(bytes);
    if (ptr !== null) {
      const b =
        data === undefined ? new Uint8Array(bytes) : new Uint8Array(data.buffer, data.byteOffset, bytes);
      rt.commands.push({ c: 'write', addr: ptr, bytes: b.slice() });
    }
    return { ptr, byteOffset: 0, shape, dtype, size };
  };
  const errorChecks: {
    name: string;
    error: string;
    reads: { bytes: number; verify: (d: Uint8Array) => Error | undefined }[];
  }[] = [];
  let errors = 0;
  /** Every read of the replay, in command order: an array check, or read r of error check e. */
  const order: ({ t: 'array'; i: number } | { t: 'error'; e: number; r: number })[] = [];
  for (const c of loadCases([...families])) {
    if (c.skip !== undefined || !registry.has(c.op)) continue;
    if (options.errorsOnly === true && c.error === undefined) continue;
    const op = registry.get(c.op);
    if (!filter(op.name)) continue;
    const kernel = registry.kernel(op, CUDA);
    if (kernel?.compute === undefined) continue;
    if (c.error !== undefined) {
      // A bad-input case the kernel itself must refuse: parameters and shapes that inference already
      // rejects never reach a kernel (the runtime reports them), so only the rest are run.
      let attrs: ReturnType<typeof op.parseParams>;
      const nOut = () => op.numOutputs(attrs);
      const outShapes: (Shape | undefined)[] = [];
      const outTypes: (DTypeName | undefined)[] = [];
      try {
        attrs = op.parseParams(c.params as Record<string, unknown>);
        // The runtime checks the input count before any kernel.
        if (c.inputs.length !== op.numInputs(attrs)) continue;
        for (let i = 0; i < nOut(); i++) {
          outShapes.push(undefined);
          outTypes.push(undefined);
        }
        if (
          !op.inferShape(
            attrs,
            c.inputs.map((a) => a.shape as Shape | undefined),
            outShapes,
          )
        )
          continue;
        op.inferType(
          attrs,
          c.inputs.map((a) => a.dtype as DTypeName | undefined),
          outTypes,
        );
      } catch {
        continue;
      }
      const inputs = c.inputs.map((a) => blob(a.shape, a.dtype, a.data as unknown as ArrayBufferView));
      const outputs = outShapes.map((sh, i) => blob(sh ?? [], outTypes[i] ?? 'float32'));
      rt.pending = [];
      const call = { isTrain: c.isTrain ?? false, requested: resources(op, attrs) };
      const failure = computeOnce(kernel, attrs, call, inputs, outputs, OpReq.write);
      if (failure !== undefined) {
        if ((failure as Error).message.includes(c.error)) errors++;
        else
          problems.push(
            `${c.name}: expected an error containing "${c.error}", got "${(failure as Error).message.split('\n')[0]}"`,
          );
      } else if (rt.pending.length > 0) {
        rt.pending.forEach((p, r) => {
          rt.commands.push({ c: 'read', addr: p.addr, n: p.bytes });
          order.push({ t: 'error', e: errorChecks.length, r });
        });
        errorChecks.push({
          name: c.name,
          error: c.error,
          reads: rt.pending.map((p) => ({ bytes: p.bytes, verify: p.verify })),
        });
      } else {
        problems.push(
          `${c.name}: expected an error containing "${c.error}", but the kernel accepted the input`,
        );
      }
      rt.pending = [];
      continue;
    }
    if (c.outputs === undefined) continue;
    try {
      const attrs = op.parseParams(c.params as Record<string, unknown>);
      const inputs = c.inputs.map((a) => blob(a.shape, a.dtype, a.data as unknown as ArrayBufferView));
      // Every output the op has (hidden ones too, shaped by the op's own inference), filled with
      // 0xff bytes (NaN, -1, an invalid bool) so an element a kernel forgets to write fails.
      const nOut = op.numOutputs(attrs);
      const outShapes: (Shape | undefined)[] = Array.from({ length: nOut }, (_, i) => c.outputs?.[i]?.shape);
      op.inferShape(
        attrs,
        c.inputs.map((a) => a.shape as Shape | undefined),
        outShapes,
      );
      const outTypes: (DTypeName | undefined)[] = Array.from(
        { length: nOut },
        (_, i) => c.outputs?.[i]?.dtype,
      );
      op.inferType(
        attrs,
        c.inputs.map((a) => a.dtype as DTypeName | undefined),
        outTypes,
      );
      const outputs = outShapes.map((sh, i) => {
        const dt = outTypes[i] ?? 'float32';
        const size = (sh ?? []).reduce((x, y) => x * y, 1);
        const want = c.outputs?.[i];
        if (add) {
          const init = want !== undefined && (dt === 'float32' || dt === 'float64') ? want.data : undefined;
          return blob(
            sh ?? [],
            dt,
            (init as ArrayBufferView | undefined) ?? new Uint8Array(size * DType[dt].bytes),
          );
        }
        return blob(sh ?? [], dt, new Uint8Array(size * DType[dt].bytes).fill(0xff));
      });
      const call = { isTrain: c.isTrain ?? false, requested: resources(op, attrs) };
      const failure = computeOnce(kernel, attrs, call, inputs, outputs, add ? OpReq.add : OpReq.write);
      if (failure !== undefined) {
        problems.push(`${c.name}: ${(failure as Error).message.split('\n')[0]}`);
        continue;
      }
      cases++;
      const want = (what: string, b: TBlob<number>, expected: CaseArray) => {
        const bytes = b.size * DType[b.dtype].bytes;
        if (b.ptr !== null) rt.commands.push({ c: 'read', addr: b.ptr, n: bytes });
        order.push({ t: 'array', i: checks.length });
        checks.push({
          what: `${c.name} ${what}`,
          expected,
          rtol: c.rtol,
          atol: c.atol,
          bytes: b.ptr === null ? 0 : bytes,
        });
      };
      c.outputs.forEach((e, i) => {
        want(`output ${i}`, outputs[i] as TBlob<number>, add ? doubled(e) : e);
      });
      c.mutated?.forEach((e, i) => {
        if (e !== null) want(`input ${i} (in place)`, inputs[i] as TBlob<number>, e);
      });
    } catch (e) {
      problems.push(`${c.name}: ${(e as Error).message.split('\n')[0]}`);
    }
  }
  const dir = mkdtempSync(join(tmpdir(), 'mx-cuda-emu-'));
  try {
    writeFileSync(join(dir, 'emu.cpp'), program(rt.srcList, rt.next - ARENA_BASE + 4096, options.powLow));
    writeFileSync(join(dir, 'cmds.bin'), encode(rt.commands));
    execFileSync('g++', [
      '-O1',
      '-w',
      '-std=c++20',
      '-pthread',
      '-o',
      join(dir, 'emu'),
      join(dir, 'emu.cpp'),
    ]);
    execFileSync(join(dir, 'emu'), [join(dir, 'cmds.bin'), join(dir, 'out.bin')]);
    execFileSync(join(dir, 'emu'), [join(dir, 'cmds.bin'), join(dir, 'out-reverse.bin'), 'reverse']);
    const forward = judge(readFileSync(join(dir, 'out.bin')));
    problems.push(...forward.problems);
    errors += forward.errors;
    // Every op emulated here is deterministic: the same golden values must come out when blocks
    // and threads run in the opposite order (a race where the last writer wins shows up here).
    const seen = new Set(forward.problems);
    for (const p of judge(readFileSync(join(dir, 'out-reverse.bin'))).problems)
      if (!seen.has(p)) problems.push(`${p} (only with blocks and threads in reverse order)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { problems, cases, arrays: checks.length, errors };

  /** Problems of one replay's output (and how many error cases it confirmed). */
  function judge(out: Buffer): { problems: string[]; errors: number } {
    const found: string[] = [];
    let confirmed = 0;
    let at = 0;
    const verdicts = errorChecks.map((ec) => ec.reads.map(() => undefined as Error | undefined));
    for (const o of order) {
      if (o.t === 'error') {
        const ec = errorChecks[o.e] as (typeof errorChecks)[number];
        const read = ec.reads[o.r] as (typeof ec.reads)[number];
        const got = new Uint8Array(read.bytes);
        got.set(out.subarray(at, at + read.bytes));
        at += read.bytes;
        (verdicts[o.e] as (Error | undefined)[])[o.r] = read.verify(got);
        continue;
      }
      const ch = checks[o.i] as Check;
      const bytes = new Uint8Array(ch.bytes);
      bytes.set(out.subarray(at, at + ch.bytes));
      at += ch.bytes;
      const data = new DType[ch.expected.dtype].storage(
        bytes.buffer,
        0,
        ch.bytes / DType[ch.expected.dtype].bytes,
      );
      const r = compareArrays(
        { shape: ch.expected.shape, dtype: ch.expected.dtype, data },
        ch.expected,
        ch.rtol,
        ch.atol,
      );
      if (!r.ok) found.push(`${ch.what}: ${r.message}`);
    }
    errorChecks.forEach((ec, e) => {
      const err = (verdicts[e] as (Error | undefined)[]).find((v) => v !== undefined);
      if (err === undefined) found.push(`${ec.name}: expected "${ec.error}", but the device check passed`);
      else if (!err.message.includes(ec.error))
        found.push(`${ec.name}: expected "${ec.error}", got "${err.message.split('\n')[0]}"`);
      else confirmed++;
    });
    return { problems: found, errors: confirmed };
  }
}
