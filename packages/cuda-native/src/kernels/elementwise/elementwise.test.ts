import { describe, expect, it } from 'vitest';
import { compileWithNvcc, compileWithNvrtc, findNvcc } from '../../test-util/compile.js';
import { renderCases } from '../../test-util/render.js';
import { installElementwise } from './index.js';

const nvcc = findNvcc();

describe('cuda elementwise kernels', () => {
  const r = renderCases(['elementwise', 'np_elementwise'], undefined, (reg, host) =>
    installElementwise(reg, host),
  );
  it('renders every case with arguments matching each kernel signature', () => {
    expect(r.errors).toEqual([]);
    expect(r.rt.problems).toEqual([]);
    expect(r.ran.size).toBeGreaterThan(150);
  });
  it.skipIf(nvcc === undefined)(
    'compiles every generated kernel with nvcc -arch=sm_90',
    async () => {
      expect(await compileWithNvcc(r.rt, nvcc as string)).toEqual([]);
    },
    600_000,
  );
  it('compiles every generated kernel with NVRTC where libnvrtc is found', (ctx) => {
    const res = compileWithNvrtc(r.rt);
    if (typeof res === 'string') {
      console.warn(`NVRTC check skipped: ${res}`);
      ctx.skip();
      return;
    }
    expect(res.problems).toEqual([]);
  }, 600_000);
});
