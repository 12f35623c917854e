/**
 * The expression compiler against NumPy: every case of tools/golden/ops/codegen.py (every unary and
 * binary fn per dtype, special values, broadcasting patterns, zero-size and zero-dim shapes,
 * params, req=add, mixed dtypes, bad shapes) runs through a throwaway op in the op harness.
 */
import { type DTypeName, isMXNetError } from '@mx/base';
import { BINARY_FNS, type Expr, UNARY_FNS } from '@mx/ops';
import { describe, expect, it } from 'vitest';
import { createOpHarness } from '../test-util/run-op.js';
import { close, defineExprOp, host, loadCodegenCases, num, values } from './test-cases.js';

const cases = loadCodegenCases();

function fnsOf(e: Expr, out: Set<string>): Set<string> {
  if (e.k === 'unary') {
    out.add(e.fn);
    fnsOf(e.a, out);
  } else if (e.k === 'binary') {
    out.add(e.fn);
    fnsOf(e.a, out);
    fnsOf(e.b, out);
  } else if (e.k === 'select') {
    fnsOf(e.cond, out);
    fnsOf(e.a, out);
    fnsOf(e.b, out);
  }
  return out;
}

describe('codegen golden cases', () => {
  const h = createOpHarness();

  it('cover every unary and binary fn in every compute dtype', () => {
    const seen = new Set<string>();
    for (const c of cases.filter((x) => x.op === 'expr'))
      for (const fn of fnsOf(c.params.expr, new Set())) seen.add(`${fn}/${c.inputs[0]?.dtype}`);
    for (const fn of [...UNARY_FNS, ...BINARY_FNS])
      for (const dt of ['float32', 'float64', 'int32', 'int64', 'int8', 'uint8', 'bool'])
        expect(seen.has(`${fn}/${dt}`), `${fn}/${dt}`).toBe(true);
  });

  cases.forEach((c, i) => {
    it(c.name, () => {
      const outDtype = (c.outputs?.[0]?.dtype ?? c.inputs[0]?.dtype) as DTypeName;
      const isExpr = c.op === 'expr';
      const op = isExpr
        ? defineExprOp(
            h.registry,
            `_codegen_case${i}`,
            c.params.expr,
            c.inputs.length,
            outDtype,
            c.params.broadcast,
          )
        : c.op;
      const params = !isExpr ? c.params : c.params.scalar === undefined ? {} : { scalar: c.params.scalar };
      const run = () =>
        h.run(op, c.inputs.map(host), params, {
          req: c.req === 'add' ? 'add' : 'write',
          out: c.out_init ? [host(c.out_init)] : undefined,
        });
      if (c.error !== undefined) {
        let thrown: unknown;
        try {
          run();
        } catch (e) {
          thrown = e;
        }
        expect(isMXNetError(thrown), String(thrown)).toBe(true);
        expect((thrown as Error).message).toContain(c.error);
        expect((thrown as Error).message).toContain('cpu(0)');
        return;
      }
      const [o] = run();
      const w = c.outputs?.[0];
      if (!o || !w) throw new Error('missing output');
      expect(o.shape).toEqual(w.shape);
      expect(o.dtype).toBe(w.dtype);
      const got = values(o.dtype, o.data as ArrayLike<number | bigint>);
      const bad = got.findIndex((v, j) => !close(v, num(w.data[j] as number | string), c.rtol, c.atol));
      const x = bad >= 0 ? c.inputs.map((a) => a.data[bad]) : [];
      expect(bad, `first mismatch at ${bad}: got ${got[bad]}, want ${w.data[bad]}, inputs ${x}`).toBe(-1);
    });
  });
});
