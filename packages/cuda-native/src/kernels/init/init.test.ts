/**
 * The init family's CUDA C, checked without a GPU: every golden init case is rendered on a
 * RenderRuntime and the generated sources are compiled with nvcc and NVRTC. The golden samplers
 * only have error cases (their values are not reproducible across devices), so the samplers, req=add
 * and the 16-bit dtypes are rendered here directly, and the launch arguments the host plans
 * (casts of start/step, Philox keys, the randint range) are checked.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DTypeName, gpu, type Shape } from '@mx/base';
import { createOpRegistry, type OpContext, OpReq, type OpReqType, type TBlob } from '@mx/ops';
import { describe, expect, it } from 'vitest';
import { CUDA } from '../../kernel.js';
import { RenderRuntime } from '../../render-runtime.js';
import { findNvcc, itCompiles } from '../../test-util/compile.js';

const nvcc = findNvcc();

import { emulateCases } from '../../test-util/host-emulate.js';
import { renderCases } from '../../test-util/render.js';
import { installInit } from './index.js';
import { PHILOX_C } from './random.js';

const gxx = ['/usr/bin/g++', '/usr/local/bin/g++'].some((p) => existsSync(p));

/** Run op's cuda kernel on a RenderRuntime with one output; returns the error message, if any. */
function runDirect(
  rt: RenderRuntime,
  op: string,
  params: Record<string, unknown>,
  shape: Shape,
  dtype: DTypeName,
  req: OpReqType = OpReq.write,
  inputs: TBlob<number>[] = [],
  outPtr = 0x200000000,
): string | undefined {
  const registry = createOpRegistry();
  installInit(registry, { rt });
  const def = registry.get(op);
  const kernel = registry.kernel(def, CUDA);
  const size = shape.reduce((a, b) => a * b, 1);
  const out: TBlob<number> = { ptr: outPtr, byteOffset: 0, shape, dtype, size };
  let seq = 7;
  const gen = { nextUint32: () => (seq = (seq * 48271) % 2147483647) };
  let failure: string | undefined;
  const ctx: OpContext = {
    isTrain: false,
    needGrad: false,
    ctx: gpu(0),
    requested: [{ generator: gen, stream: () => gen, numStreams: 1 }],
    onComplete: (e?: unknown) => {
      if (e !== undefined) failure = (e as Error).message;
    },
  };
  kernel?.compute?.(def.parseParams(params), ctx, inputs, [req], [out]);
  return failure;
}

describe('cuda init kernels', () => {
  const r = renderCases(['init'], undefined, (reg, host) => installInit(reg, host));
  const extra = new RenderRuntime();
  const extraErrors: string[] = [];
  const dts: DTypeName[] = [
    'float32',
    'float64',
    'float16',
    'bfloat16',
    'int32',
    'int64',
    'int8',
    'uint8',
    'bool',
  ];
  for (const req of [OpReq.write, OpReq.add]) {
    for (const dt of dts) {
      for (const [op, p] of [
        ['_full', { shape: [5], value: 2.5 }],
        ['_eye', { N: 4, M: 5, k: 1 }],
        ['_arange', { start: 1, stop: 6, step: 1 }],
        ['_linspace', { start: 0, stop: 4, num: 5 }],
      ] as const) {
        if (dt === 'bool' && (op === '_arange' || op === '_linspace')) continue;
        const shape = op === '_eye' ? [4, 5] : [5];
        const e = runDirect(extra, op, { ...p, dtype: dt }, shape, dt, req);
        if (e !== undefined) extraErrors.push(`${op}/${dt}/${req}: ${e}`);
      }
    }
    for (const dt of ['float32', 'float64', 'float16'] as const) {
      for (const op of ['_random_uniform', '_random_normal']) {
        const e = runDirect(extra, op, { shape: [1001], dtype: dt }, [1001], dt, req);
        if (e !== undefined) extraErrors.push(`${op}/${dt}/${req}: ${e}`);
      }
    }
    for (const dt of ['int32', 'int64'] as const) {
      const e = runDirect(
        extra,
        '_random_randint',
        { low: -3, high: 9, shape: [77], dtype: dt },
        [77],
        dt,
        req,
      );
      if (e !== undefined) extraErrors.push(`_random_randint/${dt}/${req}: ${e}`);
    }
  }

  it('renders every case with arguments matching each kernel signature', () => {
    expect(r.errors).toEqual([]);
    expect(r.rt.problems).toEqual([]);
    expect([...r.ran.keys()].sort()).toEqual([
      '_arange',
      '_contrib_arange_like',
      '_copyto',
      '_eye',
      '_full',
      '_linspace',
      '_ones',
      '_zeros',
      'ones_like',
      'zeros_like',
    ]);
  });

  it('renders the samplers, req=add and the 16-bit dtypes', () => {
    expect(extraErrors).toEqual([]);
    expect(extra.problems).toEqual([]);
    const ops = new Set(extra.launches.map((l) => l.op));
    expect([...ops].sort()).toEqual([
      '_arange',
      '_eye',
      '_full',
      '_linspace',
      '_random_normal',
      '_random_randint',
      '_random_uniform',
    ]);
  });

  it('plans launch arguments as cpu-wasm casts them', () => {
    const rt = new RenderRuntime();
    expect(runDirect(rt, '_arange', { start: 0.5, stop: 3, step: 1.7, dtype: 'int32' }, [2], 'int32')).toBe(
      undefined,
    );
    expect(rt.launches[0]?.args.slice(2).map((a) => a.v)).toEqual([0, 1, 1]);
    expect(runDirect(rt, '_arange', { start: 4, step: 0.1, repeat: 2 }, [80], 'float32')).toBe(undefined);
    expect(rt.launches[1]?.args.slice(2).map((a) => a.v)).toEqual([0, Math.fround(0.1), 2]);
    expect(runDirect(rt, '_random_randint', { low: -5, high: 2 ** 40, dtype: 'int64' }, [3], 'int64')).toBe(
      undefined,
    );
    const ri = rt.launches[2]?.args ?? [];
    expect(ri.map((a) => a.t)).toEqual(['ptr', 'i64', 'u32', 'u32', 'i64', 'i64']);
    expect(ri.slice(4).map((a) => a.v)).toEqual([-5, 2 ** 40 + 5]);
    // Two Philox blocks' worth of samples per thread for 64-bit outputs: ceil(3 / 2) = 2 blocks.
    expect(rt.launches[2]?.grid[0]).toBe(1);
    expect(runDirect(rt, '_random_uniform', { low: 1, high: 3 }, [4], 'float32')).toBe(undefined);
    expect(rt.launches[3]?.args.slice(4).map((a) => a.v)).toEqual([1, 2]);
  });

  it('reports bad calls as errors naming the op', () => {
    const rt = new RenderRuntime();
    expect(runDirect(rt, '_random_uniform', { low: 2, high: 1 }, [4], 'float32')).toMatch(/low must be less/);
    expect(runDirect(rt, '_random_normal', { scale: -1 }, [4], 'float32')).toMatch(/scale parameter/);
    expect(runDirect(rt, '_random_randint', { low: 0, high: 2 ** 33, dtype: 'int32' }, [4], 'int32')).toMatch(
      /do not fit int32/,
    );
    const src: TBlob<number> = { ptr: 0x300000000, byteOffset: 0, shape: [4], dtype: 'float32', size: 4 };
    expect(runDirect(rt, '_copyto', {}, [4], 'float32', OpReq.add, [src])).toMatch(/cannot accumulate/);
    expect(runDirect(rt, '_copyto', {}, [4], 'int32', OpReq.write, [src])).toMatch(/equal dtype/);
    expect(rt.launches).toEqual([]);
  });

  it.skipIf(nvcc === undefined)(
    "matches Random123's Philox4x32-10 known-answer vectors (the kernel's C, built for the host)",
    () => {
      const host = PHILOX_C.replaceAll(
        'static __device__ __forceinline__',
        'static __host__ __device__ inline',
      ).replaceAll('__umulhi(', 'mx_test_umulhi(');
      const prog = `#include <cstdio>
static __host__ __device__ inline unsigned mx_test_umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
${host}
static void kat(unsigned c0, unsigned c1, unsigned c2, unsigned c3, unsigned k0, unsigned k1) {
  unsigned c[4] = {c0, c1, c2, c3};
  mx_philox(c, k0, k1);
  printf("%08x %08x %08x %08x\\n", c[0], c[1], c[2], c[3]);
}
int main() {
  kat(0u, 0u, 0u, 0u, 0u, 0u);
  kat(0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu);
  kat(0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u, 0xa4093822u, 0x299f31d0u);
  printf("%.9g %.17g\\n", mx_unit24(0xffffffffu), mx_unit53(0xffffffffu, 0xffffffffu));
  return 0;
}
`;
      const dir = mkdtempSync(join(tmpdir(), 'mx-philox-'));
      try {
        writeFileSync(join(dir, 'kat.cu'), prog);
        execFileSync(nvcc as string, ['-w', '-o', join(dir, 'kat'), join(dir, 'kat.cu')]);
        const out = execFileSync(join(dir, 'kat'), { encoding: 'utf8' }).trim().split('\n');
        expect(out).toEqual([
          '6627e8d5 e169c58d bc57ac4c 9b00dbd8',
          '408f276d 41c83b0e a20bc7c6 6d5451fd',
          'd16cfe09 94fdcceb 5001e420 24126ea1',
          '0.99999994 0.99999999999999989',
        ]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    120_000,
  );

  it.skipIf(!gxx)(
    'computes the golden init values when the generated C runs on the host (g++ emulation)',
    () => {
      const res = emulateCases(['init'], installInit, () => true);
      expect(res.problems).toEqual([]);
      expect(res.cases).toBeGreaterThan(0);
      console.log(`host emulation: ${res.cases} init cases, ${res.arrays} arrays compared`);
    },
    300_000,
  );

  itCompiles(() => [r.rt, extra]);
});
