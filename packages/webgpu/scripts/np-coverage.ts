/**
 * docs/np-coverage.md: one row per NumPy function (`numpy`, `numpy.linalg`, `numpy.random`, names
 * from Debian's NumPy 1.24.2 and MXNet 2.0's `mx.np` lists, recorded by tools/golden/np/names.py in
 * np-names.json) with whether MXNet 2.0 has it, whether @mx's np namespace has it (NumPy's name in
 * camelCase), and where it runs. Where it runs is measured, not declared: each @mx function is
 * called on small sample arguments on cpu-wasm (the first argument pattern it accepts) with
 * `runtime.invoke` watched, and the ops it ran are looked up in webgpu's kernels — a function runs
 * on gpu(0) when all of them have webgpu kernels, else the table names the ops left out. A test
 * renders it again and fails when the committed file is stale.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createNp, createRuntime, type NDArray, type Runtime } from '@mx/ndarray';
import { WEBGPU_LEFT_OUT } from '../src/kernels/index.js';

interface Names {
  readonly numpy: string;
  readonly np: readonly string[];
  readonly linalg: readonly string[];
  readonly random: readonly string[];
  readonly mxnet: {
    readonly np: readonly string[];
    readonly fallback: readonly string[];
    readonly linalg: readonly string[];
    readonly random: readonly string[];
  };
}

type Fn = (...args: unknown[]) => unknown;
const camel = (n: string): string => n.replace(/_([a-z0-9])/g, (_, ch: string) => ch.toUpperCase());

/** Sample argument lists, tried in order until the function accepts one. */
function patterns(np: Record<string, Fn>): (() => unknown[])[] {
  const a = () =>
    np.array?.([
      [0.5, -1, 2],
      [3, 0.25, -2],
    ]);
  const sq = () =>
    np.array?.([
      [4, 1, 0],
      [1, 3, 1],
      [0, 1, 2],
    ]);
  const v = () => np.array?.([1, 2, 3]);
  const iv = () => np.array?.([1, 0, 2], { dtype: 'int32' });
  const bv = () => np.array?.([true, false, true], { dtype: 'bool' });
  return [
    () => [a()],
    () => [a(), a()],
    () => [sq()],
    () => [sq(), sq()],
    () => [v()],
    () => [v(), v()],
    () => [iv()],
    () => [bv(), bv()],
    () => [a(), 1],
    () => [a(), 0],
    () => [[2, 3]],
    () => [3],
    () => [0, 1, [2, 3]],
    () => [1, 2],
    () => [2, [2, 3]],
    () => [[a(), a()]],
    () => [a(), [1, 0]],
    () => ['ij,jk->ik', a(), np.array?.([[1], [2], [3]])],
    () => [sq(), v()],
    () => [v(), 2],
    () => [[v(), v()]],
  ];
}

/** The ops `fn` runs on its first accepted sample, or undefined when none is accepted. */
function sampleOps(rt: Runtime, np: Record<string, Fn>, fn: Fn): string[] | undefined {
  const ran = new Set<string>();
  const invoke = rt.invoke.bind(rt);
  for (const make of patterns(np)) {
    let args: unknown[] = [];
    ran.clear();
    try {
      args = make();
      rt.invoke = (op, ...rest) => {
        ran.add(typeof op === 'string' ? rt.registry.get(op).name : op.name);
        return invoke(op, ...rest);
      };
      const out = fn(...args);
      rt.invoke = invoke;
      const outs = (Array.isArray(out) ? out : [out]).filter(
        (o) => typeof o === 'object' && o !== null && 'dispose' in o,
      );
      for (const o of outs as NDArray[]) o.dispose();
      return [...ran].sort();
    } catch {
      rt.invoke = invoke;
    } finally {
      for (const x of args.flat())
        if (typeof x === 'object' && x !== null && 'dispose' in x) (x as NDArray).dispose();
    }
  }
  return undefined;
}

export async function renderNpCoverage(): Promise<string> {
  const names = JSON.parse(
    readFileSync(fileURLToPath(new URL('./np-names.json', import.meta.url)), 'utf8'),
  ) as Names;
  const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64, workers: 0 })], seed: 0 });
  const { np } = createNp(rt);
  const spaces = [
    {
      title: 'numpy',
      prefix: 'np.',
      ours: np as unknown as Record<string, Fn>,
      numpy: names.np,
      mx: names.mxnet.np,
    },
    {
      title: 'numpy.linalg',
      prefix: 'np.linalg.',
      ours: np.linalg as unknown as Record<string, Fn>,
      numpy: names.linalg,
      mx: names.mxnet.linalg,
    },
    {
      title: 'numpy.random',
      prefix: 'np.random.',
      ours: np.random as unknown as Record<string, Fn>,
      numpy: names.random,
      mx: names.mxnet.random,
    },
  ];
  const sections: string[] = [];
  const totals = { mx: 0, mxOurs: 0, numpy: 0, numpyOurs: 0, gpu: 0 };
  for (const s of spaces) {
    const all = [...new Set([...s.numpy, ...s.mx])].sort();
    const rows: string[] = [];
    for (const name of all) {
      const inMx = s.mx.includes(name);
      const fallback = s.title === 'numpy' && names.mxnet.fallback.includes(name);
      const ours = s.ours[camel(name)];
      const has = typeof ours === 'function';
      if (inMx) totals.mx++;
      if (inMx && has) totals.mxOurs++;
      if (s.numpy.includes(name)) totals.numpy++;
      if (s.numpy.includes(name) && has) totals.numpyOurs++;
      let cpu = '—';
      let gpu = '—';
      if (has) {
        const ops = sampleOps(rt, np as unknown as Record<string, Fn>, ours as Fn);
        cpu = '✓';
        if (ops === undefined) gpu = 'not sampled';
        else {
          const left = ops.filter((o) => WEBGPU_LEFT_OUT[o] !== undefined);
          gpu = left.length === 0 ? '✓' : `cpu(0) only: ${left.map((o) => `\`${o}\``).join(', ')}`;
          if (left.length === 0) totals.gpu++;
        }
      }
      const mxCell = inMx ? '✓' : fallback ? 'host NumPy' : '—';
      const oursCell = has ? `\`${s.prefix}${camel(name)}\`` : '—';
      rows.push(`| \`${name}\` | ${mxCell} | ${oursCell} | ${cpu} | ${gpu} |`);
    }
    sections.push(
      `## ${s.title}\n\n| NumPy | MXNet 2.0 | @mx | cpu-wasm | webgpu |\n| --- | --- | --- | --- | --- |\n${rows.join('\n')}\n`,
    );
  }
  await rt.dispose();
  return `# NumPy coverage of \`mx.np\`

Generated by \`packages/webgpu/scripts/gen-np-coverage.ts\` (do not edit; \`pnpm --filter @mx/webgpu
gen:np-coverage\`) from NumPy ${names.numpy}'s function names, MXNet 2.0's \`mx.np\` lists and @mx's np
namespace. "host NumPy": MXNet 2.0 runs it through host NumPy (\`fallback.py\`), which @mx cannot do
in browsers. The webgpu column comes from running each function on sample arguments on cpu-wasm and
looking up the operators it ran in webgpu's kernels; "not sampled" means no sample call fitted.

- MXNet 2.0's names: **${totals.mxOurs} of ${totals.mx}** in @mx.
- NumPy's names: **${totals.numpyOurs} of ${totals.numpy}** in @mx; ${totals.gpu} run entirely on webgpu.

${sections.join('\n')}`;
}
