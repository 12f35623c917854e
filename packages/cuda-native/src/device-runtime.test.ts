/**
 * DeviceRuntime's bookkeeping on a scripted native layer (this machine has no GPU, so the addon
 * cannot reach a device; the addon's own failure paths are tested in addon.test.ts): how an op
 * completes, what a sticky CUDA error does to the device, out-of-memory handling, per-op scratch,
 * deferred checks, the cuBLAS arguments a GEMM becomes, and kernels loaded once.
 */
import { gpu, isMXNetError, MXNetError } from '@mx/base';
import type { OpContext } from '@mx/ops';
import { describe, expect, it } from 'vitest';
import type { CudaAddon, CudaDeviceInfo } from './addon.js';
import { DeviceRuntime } from './device-runtime.js';
import type { KernelCompiler } from './nvrtc.js';

const INFO: CudaDeviceInfo = {
  name: 'scripted',
  totalMemory: 1 << 30,
  major: 9,
  minor: 0,
  multiprocessors: 132,
  maxThreadsPerBlock: 1024,
  sharedMemoryPerBlock: 49152,
  clockKHz: 1_980_000,
  memoryBusWidth: 5120,
  pciBusId: 1,
};

function cudaFail(call: string, code: number, codeName: string): Error {
  return Object.assign(new Error(`${call} failed: ${codeName}: scripted`), { call, code, codeName });
}

/** A native layer recording calls; `fail` makes the named function throw once. */
function scripted() {
  const calls: string[] = [];
  const fail = new Map<string, Error>();
  let next = 0x10000;
  let free = 1 << 20;
  const rec = (name: string, ...args: unknown[]) => {
    calls.push(`${name}(${args.join(',')})`);
    const e = fail.get(name);
    if (e !== undefined) {
      fail.delete(name);
      throw e;
    }
  };
  const addon = {
    abi: 1,
    moduleLoad: (_d: number, _c: Uint8Array, entry: string) => {
      rec('moduleLoad', entry);
      return 7;
    },
    launch: (_d: number, fn: number, gx: number) => rec('launch', fn, gx),
    gemm: (...a: number[]) => rec('gemm', ...a),
    memset: (_d: number, p: number, v: number, n: number) => rec('memset', p, v, n),
    copy: (_d: number, dst: number, src: number, n: number) => rec('copy', dst, src, n),
    memAlloc: (_d: number, n: number) => {
      rec('memAlloc', n);
      if (n > free) return null;
      free -= n;
      const p = next;
      next += n;
      return p;
    },
    memFree: (_d: number, p: number) => rec('memFree', p),
    memInfo: () => ({ free, total: 1 << 30 }),
    write: (_d: number, p: number) => rec('write', p),
    read: (_d: number, p: number, n: number) => {
      rec('read', p, n);
      const b = new BigInt64Array(2);
      b[0] = 3n;
      b[1] = 42n;
      return Promise.resolve(b.buffer.slice(0, n));
    },
    synchronize: () => Promise.resolve(),
  } as unknown as CudaAddon;
  const compiler = { compile: () => new Uint8Array([0x7f, 0x45, 0x4c, 0x46]) } as unknown as KernelCompiler;
  return { calls, fail, addon, compiler, setFree: (n: number) => (free = n) };
}

function ctxWith(done: (e?: unknown) => void): OpContext {
  return { isTrain: false, needGrad: false, ctx: gpu(0), requested: [], onComplete: done };
}

const SRC = { entry: 'k', code: 'extern "C" __global__ void k(float* x) {}' };

describe('DeviceRuntime', () => {
  it('queues an op and completes it at once; loads each kernel once', () => {
    const s = scripted();
    const rt = new DeviceRuntime(s.addon, 0, INFO, s.compiler, { tf32: false });
    let done: unknown = 'pending';
    for (let i = 0; i < 2; i++)
      rt.runOp(
        'op',
        ctxWith((e) => (done = e)),
        () => rt.launch(SRC, [4], [256], [{ t: 'ptr', v: 16 }]),
      );
    expect(done).toBeUndefined();
    expect(s.calls.filter((c) => c.startsWith('moduleLoad'))).toEqual(['moduleLoad(k)']);
    expect(s.calls.filter((c) => c.startsWith('launch'))).toEqual(['launch(7,4)', 'launch(7,4)']);
    expect(rt.arch).toBe(90);
  });

  it('a sticky CUDA error fails the op and marks the device lost; later ops fail at once', () => {
    const s = scripted();
    const rt = new DeviceRuntime(s.addon, 0, INFO, s.compiler, { tf32: false });
    s.fail.set('launch', cudaFail('cuLaunchKernel', 700, 'CUDA_ERROR_ILLEGAL_ADDRESS'));
    let first: unknown;
    rt.runOp(
      'Convolution',
      ctxWith((e) => (first = e)),
      () => rt.launch(SRC, [1], [32], [{ t: 'ptr', v: 0 }]),
    );
    expect(isMXNetError(first)).toBe(true);
    expect((first as MXNetError).op).toBe('Convolution');
    expect((first as MXNetError).message).toContain('CUDA_ERROR_ILLEGAL_ADDRESS');
    expect(rt.lost?.reason).toContain('gpu(0) was lost');
    const before = s.calls.length;
    let second: unknown;
    rt.runOp(
      'relu',
      ctxWith((e) => (second = e)),
      () => rt.launch(SRC, [1], [32], [{ t: 'ptr', v: 0 }]),
    );
    expect((second as MXNetError).op).toBe('relu');
    expect(s.calls.length).toBe(before); // nothing reached the device
    expect(() => rt.checkAlive('alloc')).toThrow(/was lost/);
  });

  it('a non-sticky error fails only that op', () => {
    const s = scripted();
    const rt = new DeviceRuntime(s.addon, 0, INFO, s.compiler, { tf32: false });
    s.fail.set('launch', cudaFail('cuLaunchKernel', 701, 'CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES'));
    let err: unknown;
    rt.runOp(
      'op',
      ctxWith((e) => (err = e)),
      () => rt.launch(SRC, [1], [32], [{ t: 'ptr', v: 0 }]),
    );
    expect(isMXNetError(err)).toBe(true);
    expect(rt.lost).toBeNull();
  });

  it('scratch: trims the pool once when the device is full, then names the op, bytes and free memory', () => {
    const s = scripted();
    const rt = new DeviceRuntime(s.addon, 0, INFO, s.compiler, { tf32: false });
    let trims = 0;
    rt.exhausted = () => {
      trims++;
      s.setFree(1 << 22);
      return true;
    };
    s.setFree(0);
    let ok: unknown = 'pending';
    rt.runOp(
      'Pooling',
      ctxWith((e) => (ok = e)),
      () => {
        const a = rt.temp(1000);
        const b = rt.temp(10);
        expect(b - a).toBe(1024); // 256-byte granules
      },
    );
    expect(ok).toBeUndefined();
    expect(trims).toBe(1);
    s.setFree(0);
    rt.exhausted = () => false;
    let err: unknown;
    rt.runOp(
      'Convolution',
      ctxWith((e) => (err = e)),
      () => rt.temp(64 << 20),
    );
    expect((err as MXNetError).reason).toMatch(
      /out of device memory: temporary workspace needs \d+ bytes; 0 of \d+ bytes are free/,
    );
    expect((err as MXNetError).op).toBe('Convolution');
  });

  it('a deferred check completes the op after its read-back, with the verdict', async () => {
    const s = scripted();
    const rt = new DeviceRuntime(s.addon, 0, INFO, s.compiler, { tf32: false });
    const verdict = await new Promise<unknown>((resolve) =>
      rt.runOp('take', ctxWith(resolve), () => {
        rt.check(16, (bytes) => {
          const v = new BigInt64Array(bytes.buffer, bytes.byteOffset, 2);
          return v[0] === -1n ? undefined : new MXNetError(`index ${v[1]} at ${v[0]}`, { op: 'take' });
        });
      }),
    );
    expect((verdict as MXNetError).reason).toBe('index 42 at 3');
    expect(s.calls.some((c) => c.startsWith('read('))).toBe(true);
  });

  it('GEMM: data and compute types, TF32 only when asked and only for float32', () => {
    for (const [tf32, dtype, want] of [
      [false, 'float32', '0,68'],
      [true, 'float32', '0,77'],
      [true, 'float64', '1,70'],
      [false, 'float16', '2,68'],
      [false, 'bfloat16', '14,68'],
    ] as const) {
      const s = scripted();
      const rt = new DeviceRuntime(s.addon, 0, INFO, s.compiler, { tf32 });
      rt.runOp(
        'dot',
        ctxWith(() => {}),
        () =>
          rt.gemm({
            transA: true,
            transB: false,
            m: 2,
            n: 3,
            k: 4,
            alpha: 1,
            a: 1,
            lda: 4,
            strideA: 0,
            b: 2,
            ldb: 4,
            strideB: 0,
            beta: 0,
            c: 3,
            ldc: 2,
            strideC: 0,
            batch: 1,
            dtype,
          }),
      );
      expect(s.calls.at(-1)).toBe(`gemm(0,1,0,2,3,4,1,1,4,0,2,4,0,0,3,2,0,1,${want})`);
    }
  });
});
