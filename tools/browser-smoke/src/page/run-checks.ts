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

/**
 * A GEMM large enough for the worker pool (2·192³ flop, above the inline threshold): on a
 * cross-origin-isolated page the pool starts browser Workers on the shared memory; elsewhere it runs
 * on the page's thread. A = ones, B[i][c] = (i mod 5) - 2, so every C entry is -3.
 */
async function gemmOnWorkers(rt: Runtime): Promise<string | undefined> {
  const n = 192;
  const b = Array.from({ length: n * n }, (_, k) => (Math.floor(k / n) % 5) - 2);
  const runtime = (
    rt.backendFor(rt.defaultContext) as unknown as {
      runtime: { threads: { size: number } | null; memory: { shared: boolean } };
    }
  ).runtime;
  for (let round = 0; round < 3; round++) {
    const bad = await rt.nd.scope(async () => {
      const c = rt.nd.dot(rt.nd.ones([n, n]), rt.nd.array(b, { shape: [n, n] }));
      const data = await c.data();
      const wrong = data.findIndex((v) => v !== -3);
      return wrong < 0 ? undefined : `C[${wrong}] = ${data[wrong]}, expected -3 (round ${round})`;
    });
    if (bad !== undefined) return bad;
    await new Promise((r) => setTimeout(r, 100)); // let the workers come online between rounds
  }
  const threads = runtime.threads?.size ?? 1;
  if (runtime.memory.shared && threads < 2) return `shared memory but ${threads} thread(s): no worker pool`;
  if (!runtime.memory.shared && threads !== 1) return `no shared memory but ${threads} threads`;
  return undefined;
}

/** Every smoke check, in order: the NDArray surface first, then one or more checks per op family. */
export async function runSmokeChecks(rt: Runtime): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const c of ARRAY_CHECKS) results.push(await timed(c.name, () => rt.nd.scope(() => c.run(rt))));
  for (const c of OP_CHECKS) {
    results.push(await timed(c.label === undefined ? c.op : `${c.op} (${c.label})`, () => runOp(rt, c)));
  }
  results.push(await timed('dot 192x192 (worker pool where memory is shared)', () => gemmOnWorkers(rt)));
  return results;
}
