import { describe, expect, it } from 'vitest';
import { itCompiles } from '../../test-util/compile.js';
import { renderCases } from '../../test-util/render.js';
import { installElementwise } from './index.js';

describe('cuda elementwise kernels', () => {
  const r = renderCases(['elementwise', 'np_elementwise'], undefined, (reg, host) =>
    installElementwise(reg, host),
  );
  it('renders every case with arguments matching each kernel signature', () => {
    expect(r.errors).toEqual([]);
    expect(r.rt.problems).toEqual([]);
    expect(r.ran.size).toBeGreaterThan(150);
  });
  itCompiles(() => [r.rt]);
});
