/**
 * The np benchmarks of issue 16 against NumPy 1.24.2 (`/usr/bin/python3`, tools/peers/python/
 * numpy_np.py) on the same arrays in the same run: `einsum('bij,bjk->bik')` for 64 × 128² float32
 * (against `np.matmul`; NumPy's own `einsum` reported too), `sort` of 1M float32, `unique` of 1M
 * int32, a boolean-mask gather of 16M float32 with 50% true, and `take` of 1,024 rows along axis 0
 * of a 4,096 × 1,024 float32 array; plus the np layer's dispatch cost (`np.add` of one element
 * against `nd.add`). Ours runs through the public np API and waits for the result in memory
 * (`waitToReadSync`), so dispatch, allocation and the engine are included. Batches alternate with
 * NumPy's; medians. A function the namespace lacks is skipped with a printed reason; without
 * python3/NumPy ours is reported alone. In `pnpm bench` under the `np` key.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BenchResult, result, summarize } from '@mx/bench-kit';
import { createNp, type NDArray, type Runtime } from '@mx/ndarray';
import { PythonPeer } from './python-peer.js';
import { rng } from './rng.js';

const SCRIPT = resolve(dirname(fileURLToPath(import.meta.url)), '../../../tools/peers/python/numpy_np.py');

interface Workload {
  readonly name: string;
  /** The peer's workload key (NumPy's counterpart). */
  readonly peer: string;
  readonly params: Record<string, unknown>;
  readonly target: string;
  /** Ours, one run returning the result (disposed by the caller); undefined: skipped, with why. */
  readonly run: (() => NDArray) | string;
}

/** Run the np workloads on `rt`; results are appended to `results`. */
export async function runNpBench(rt: Runtime, results: BenchResult[]): Promise<void> {
  const { np } = createNp(rt);
  const r = rng(16);
  const f32 = (n: number) => Float32Array.from({ length: n }, () => 2 * r() - 1);
  const einA = f32(64 * 128 * 128);
  const einB = f32(64 * 128 * 128);
  const sortX = f32(1 << 20);
  const uniqX = Int32Array.from({ length: 1 << 20 }, () => Math.floor(r() * 100_000));
  const maskX = f32(1 << 24);
  const maskM = Uint8Array.from({ length: 1 << 24 }, () => (r() < 0.5 ? 1 : 0));
  const takeX = f32(4096 * 1024);
  const takeI = BigInt64Array.from({ length: 1024 }, () => BigInt(Math.floor(r() * 4096)));
  const dir = mkdtempSync(join(os.tmpdir(), 'mx-np-bench-'));
  const bytes = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  writeFileSync(
    join(dir, 'meta.json'),
    JSON.stringify({ einsum_a: [64, 128, 128], einsum_b: [64, 128, 128], take_x: [4096, 1024] }),
  );
  writeFileSync(join(dir, 'einsum_a.f32'), bytes(einA));
  writeFileSync(join(dir, 'einsum_b.f32'), bytes(einB));
  writeFileSync(join(dir, 'sort.f32'), bytes(sortX));
  writeFileSync(join(dir, 'unique.i32'), bytes(uniqX));
  writeFileSync(join(dir, 'mask_x.f32'), bytes(maskX));
  writeFileSync(join(dir, 'mask_m.u8'), bytes(maskM));
  writeFileSync(join(dir, 'take_x.f32'), bytes(takeX));
  writeFileSync(join(dir, 'take_i.i64'), bytes(takeI));

  const a = np.array(einA).reshape([64, 128, 128]);
  const b = np.array(einB).reshape([64, 128, 128]);
  const s = np.array(sortX);
  const u = np.array(uniqX, { dtype: 'int32' });
  const mx = np.array(maskX);
  const mm = np.array(maskM, { dtype: 'bool' });
  const tx = np.array(takeX).reshape([4096, 1024]);
  const ti = np.array(takeI, { dtype: 'int64' });
  const fns = np as unknown as Record<string, ((...args: unknown[]) => NDArray) | undefined>;
  const need = (name: string, run: () => NDArray): (() => NDArray) | string =>
    typeof fns[name] === 'function' ? run : `np.${name} is not in the namespace yet`;
  const workloads: Workload[] = [
    {
      name: 'np.einsum.bij,bjk->bik.64x128x128',
      peer: 'matmul',
      params: { batch: 64, n: 128, dtype: 'float32' },
      target: '<= 1.3x np.matmul (same run)',
      run: need('einsum', () => np.einsum('bij,bjk->bik', a, b)),
    },
    {
      name: 'np.sort.1M.float32',
      peer: 'sort',
      params: { n: 1 << 20 },
      target: '<= 2x NumPy',
      run: need('sort', () => (fns.sort as (x: NDArray) => NDArray)(s)),
    },
    {
      name: 'np.unique.1M.int32',
      peer: 'unique',
      params: { n: 1 << 20, distinct: 100_000 },
      target: '<= 2x NumPy',
      run: need('unique', () => (fns.unique as (x: NDArray) => NDArray)(u)),
    },
    {
      name: 'np.mask-gather.16M.50%',
      peer: 'mask',
      params: { n: 1 << 24 },
      target: '<= 1x NumPy',
      run: () => mx.get(mm),
    },
    {
      name: 'np.take.axis0.1024of4096x1024',
      peer: 'take',
      params: { rows: 1024 },
      target: '<= 1.5x NumPy',
      run: need('take', () =>
        (fns.take as (x: NDArray, i: NDArray, o: object) => NDArray)(tx, ti, { axis: 0 }),
      ),
    },
  ];
  const peer = process.env.MX_BENCH_PEERS === '0' ? 'MX_BENCH_PEERS=0' : await PythonPeer.start(SCRIPT, dir);
  if (typeof peer === 'string') console.log(`np: NumPy skipped (${peer})`);
  const rounds = Number(process.env.MX_NP_ROUNDS ?? 5);
  try {
    for (const w of workloads) {
      if (typeof w.run === 'string') {
        console.log(`${w.name}: skipped (${w.run})`);
        continue;
      }
      const run = w.run;
      const once = () => {
        const t0 = performance.now();
        const y = run();
        y.waitToReadSync();
        const ms = performance.now() - t0;
        y.dispose();
        return ms;
      };
      for (let i = 0; i < 2; i++) once();
      const ours: number[] = [];
      const theirs: number[] = [];
      const einsumPeer: number[] = [];
      if (typeof peer !== 'string') await peer.run(w.peer, 1);
      for (let round = 0; round < rounds; round++) {
        // One untimed call first: the worker pool parks while NumPy runs, and waking it is not the
        // kernel's cost (NumPy's BLAS threads spin through the same gaps).
        once();
        for (let i = 0; i < 3; i++) ours.push(once());
        if (typeof peer !== 'string') {
          theirs.push(...(await peer.run(w.peer, 3)).times_ms);
          if (w.peer === 'matmul') einsumPeer.push(...(await peer.run('einsum', 1)).times_ms);
        }
      }
      const o = summarize(ours);
      const extra: Record<string, unknown> = {};
      let line = `ours ${o.medianMs.toFixed(2)} ms`;
      if (theirs.length > 0) {
        const t = summarize(theirs);
        extra.numpyMs = t.medianMs;
        extra.ratio = o.medianMs / t.medianMs;
        line += `, NumPy ${t.medianMs.toFixed(2)} ms (ours/NumPy ${(o.medianMs / t.medianMs).toFixed(2)}x)`;
        if (einsumPeer.length > 0) {
          extra.numpyEinsumMs = summarize(einsumPeer).medianMs;
          line += `; NumPy einsum ${summarize(einsumPeer).medianMs.toFixed(2)} ms`;
        }
      }
      results.push(result(w.name, w.params, o, { target: w.target, extra }));
      console.log(`${w.name}: ${line}`);
    }
    // The np layer's dispatch cost: one-element adds, np.add against nd.add.
    const one = np.ones([1]);
    const k = 2000;
    const chain = (add: (x: NDArray) => NDArray) => {
      const t0 = performance.now();
      let x: NDArray = rt.nd.zeros([1]);
      for (let i = 0; i < k; i++) {
        const y = add(x);
        x.dispose();
        x = y;
      }
      x.waitToReadSync();
      x.dispose();
      return (performance.now() - t0) / k; // ms per op
    };
    const npT: number[] = [];
    const ndT: number[] = [];
    for (let i = 0; i < 12; i++) {
      npT.push(chain((x) => np.add(x, one)));
      ndT.push(chain((x) => rt.nd.add(x, one)));
    }
    const sn = summarize(npT);
    const sd = summarize(ndT);
    results.push(
      result('np.add.1-element', { k }, sn, {
        rate: { value: sn.medianMs * 1000, unit: 'us/op' },
        target: '<= 1.1x nd.add',
        extra: { ndAddUs: sd.medianMs * 1000, ratio: sn.medianMs / sd.medianMs },
      }),
    );
    console.log(
      `np.add.1-element: ${(sn.medianMs * 1000).toFixed(2)} us/op vs nd.add ${(sd.medianMs * 1000).toFixed(2)} us/op (${(sn.medianMs / sd.medianMs).toFixed(2)}x)`,
    );
    one.dispose();
  } finally {
    if (typeof peer !== 'string') peer.close();
    for (const x of [a, b, s, u, mx, mm, tx, ti]) x.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}
