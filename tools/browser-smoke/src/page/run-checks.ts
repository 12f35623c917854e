/**
 * Runs the smoke checks (array-checks.ts, op-checks.ts) against a runtime, each inside `nd.scope`
 * so its arrays are freed (exercising the browser's scope stack, which has no AsyncLocalStorage),
 * and times each one. Failures are recorded, never thrown: one broken op must not hide the others.
 */
import { isMXNetError } from '@mx/base';
import type { Runtime } from '@mx/ndarray';
import { ARRAY_CHECKS, SkipCheck } from './array-checks.js';
import { compareValues, OP_CHECKS, type OpCheck } from './op-checks.js';
import type { CheckResult } from './types.js';

function message(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message.split('\n')[0]}` : String(e);
}

async function timed(name: string, body: () => Promise<string | undefined>): Promise<CheckResult> {
  const t = performance.now();
  try {
    const detail = await body();
    const ms = performance.now() - t;
    return detail === undefined ? { name, status: 'pass', ms } : { name, status: 'fail', detail, ms };
  } catch (e) {
    const ms = performance.now() - t;
    if (e instanceof SkipCheck) return { name, status: 'skip', detail: e.message, ms };
    return { name, status: 'fail', detail: `threw ${message(e)}`, ms };
  }
}

async function runOp(rt: Runtime, c: OpCheck): Promise<string | undefined> {
  const op = rt.registry.find(c.op);
  if (op === undefined) throw new SkipCheck(`${c.op} is not registered`);
  if (rt.registry.kernel(op, 'cpu-wasm') === undefined) throw new SkipCheck(`${c.op} has no cpu-wasm kernel`);
  return rt.nd.scope(async () => {
    const inputs = c.inputs.map((a) => rt.nd.array([...a.data], { shape: [...a.shape], dtype: a.dtype }));
    if (c.error !== undefined) {
      try {
        const outs = rt.invoke(c.op, inputs, c.params);
        for (const o of outs) await o.data();
      } catch (e) {
        if (!isMXNetError(e)) return `threw ${message(e)}, expected an MXNetError`;
        return e.message.includes(c.error) ? undefined : `MXNetError without '${c.error}': ${message(e)}`;
      }
      return 'succeeded, expected an MXNetError';
    }
    const out = rt.invoke(c.op, inputs, c.params)[0];
    const want = c.expected;
    if (out === undefined || want === undefined) return 'no output';
    if (out.shape.join(',') !== want.shape.join(',') || out.shape.length !== want.shape.length) {
      return `shape [${out.shape.join(', ')}], expected [${want.shape.join(', ')}]`;
    }
    if (want.dtype !== undefined && out.dtype !== want.dtype)
      return `dtype ${out.dtype}, expected ${want.dtype}`;
    return compareValues(await out.data(), want.data);
  });
}

/** Every smoke check, in order: the NDArray surface first, then one or more checks per op family. */
export async function runSmokeChecks(rt: Runtime): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const c of ARRAY_CHECKS) results.push(await timed(c.name, () => rt.nd.scope(() => c.run(rt))));
  for (const c of OP_CHECKS) {
    results.push(await timed(c.label === undefined ? c.op : `${c.op} (${c.label})`, () => runOp(rt, c)));
  }
  return results;
}
