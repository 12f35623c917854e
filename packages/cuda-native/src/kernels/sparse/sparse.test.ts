/**
 * The sparse family registers no kernel yet: its golden cases render nothing, and every op it
 * leaves out is a real op.
 */
import { describe, expect, it } from 'vitest';
import { renderCases } from '../../test-util/render.js';
import { installSparse } from './index.js';
import { LEFT_OUT } from './left-out.js';

describe('cuda sparse kernels', () => {
  const r = renderCases(['sparse'], undefined, (reg, host) => installSparse(reg, host));
  it('registers no sparse kernel yet, and lists every sparse op it leaves out as an op', () => {
    expect(r.errors).toEqual([]);
    expect(r.rt.problems).toEqual([]);
    expect([...r.ran.keys()]).toEqual([]);
    expect(Object.keys(LEFT_OUT).filter((n) => !r.registry.has(n))).toEqual([]);
  });
});
