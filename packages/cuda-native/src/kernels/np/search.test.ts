/**
 * `_npi_searchsorted` on cuda-native without a GPU, against the np_sort golden cases (NumPy
 * 1.24.2): the generated CUDA C executed on the CPU by the g++ SIMT emulation (req write and add;
 * outputs start as 0xff bytes, so an element the kernel skips fails), every case rendered with
 * launch arguments checked against the kernel's signature, and the sources compiled with nvcc /
 * NVRTC where those are installed (skipped with a printed reason otherwise).
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { itCompiles } from '../../test-util/compile.js';
import { emulateCases } from '../../test-util/host-emulate.js';
import { renderCases } from '../../test-util/render.js';
import { installNp } from './index.js';

const OP = '_npi_searchsorted';
const gxx = (() => {
  try {
    return execFileSync('g++', ['--version']).length > 0;
  } catch {
    return false;
  }
})();
if (!gxx) console.warn('@mx/cuda-native searchsorted emulation: skipping: g++ not found');

describe('cuda _npi_searchsorted', () => {
  const r = renderCases(
    ['np_sort'],
    (op) => op === OP,
    (reg, host) => installNp(reg, host),
  );
  it('renders every case with arguments matching the kernel signature', () => {
    expect(r.errors).toEqual([]);
    expect(r.rt.problems).toEqual([]);
    expect(r.ran.get(OP)).toBeGreaterThanOrEqual(90);
  });
  itCompiles(() => [r.rt]);

  for (const req of ['write', 'add'] as const) {
    it.skipIf(!gxx)(
      `every golden case executed on the host, req ${req}`,
      () => {
        const res = emulateCases(['np_sort'], installNp, (op) => op === OP, { req });
        expect(res.problems).toEqual([]);
        expect(res.cases).toBeGreaterThanOrEqual(90);
      },
      600_000,
    );
  }
});
