/**
 * The compile check can fail: a source with an error is reported against the op that launched it
 * (nvcc maps the error line back to its kernel; NVRTC compiles each alone), while good sources in
 * the same batch pass, and a launch whose arguments differ from the signature is caught.
 */
import { gpu } from '@mx/base';
import { describe, expect, it } from 'vitest';
import { RenderRuntime } from '../render-runtime.js';
import { compileWithNvcc, compileWithNvrtc, findNvcc } from './compile.js';

const nvcc = findNvcc();

function runtimeWithBadKernel(): RenderRuntime {
  const rt = new RenderRuntime();
  const ctx = { isTrain: false, needGrad: false, ctx: gpu(0), requested: [] };
  rt.runOp('good_op', ctx, () =>
    rt.launch(
      {
        entry: 'mx_good',
        code: 'extern "C" __global__ void mx_good(float* x, long long n) { MX_GRID_LOOP(i, n) x[i] = 1.0f; }',
      },
      [1],
      [32],
      [
        { t: 'ptr', v: 0 },
        { t: 'i64', v: 4 },
      ],
    ),
  );
  rt.runOp('bad_op', ctx, () =>
    rt.launch(
      { entry: 'mx_bad', code: 'extern "C" __global__ void mx_bad(float* x) { x[0] = nothing_here; }' },
      [1],
      [32],
      [
        { t: 'ptr', v: 0 },
        { t: 'i32', v: 1 },
      ],
    ),
  );
  return rt;
}

describe('the compile check', () => {
  it('catches arguments that do not match the signature', () => {
    expect(runtimeWithBadKernel().problems).toEqual([
      'bad_op: mx_bad takes (ptr) but was launched with (ptr, i32)',
    ]);
  });
  it.skipIf(nvcc === undefined)(
    'nvcc reports the broken kernel against its op',
    async () => {
      const problems = await compileWithNvcc(runtimeWithBadKernel(), nvcc as string);
      expect(problems).toEqual(['bad_op: identifier "nothing_here" is undefined']);
    },
    120_000,
  );
  it('NVRTC reports the broken kernel against its op', (ctx) => {
    const res = compileWithNvrtc(runtimeWithBadKernel());
    if (typeof res === 'string') {
      ctx.skip();
      return;
    }
    expect(res.compiled).toBe(1);
    expect(res.problems).toHaveLength(1);
    expect(res.problems[0]).toMatch(/^bad_op: NVRTC_ERROR_COMPILATION: .*"nothing_here" is undefined/s);
  });
});
