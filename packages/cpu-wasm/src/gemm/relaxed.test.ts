/**
 * The relaxed-SIMD (FMA) GEMM module. Node 20 ships relaxed SIMD behind a flag and reports it off,
 * so this runs a child Node with `--experimental-wasm-relaxed-simd`, checks that the runtime then
 * detects it, builds the separate relaxed module and computes a GEMM matching a float64 reference.
 * Also checks that only the relaxed build carries relaxed ops.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildGemmModule } from './driver.js';
import { GEMM_F32, GEMM_F64 } from './dtype.js';

const mem = { min: 1, max: 65536, shared: true } as const;

describe('relaxed SIMD GEMM', () => {
  it('keeps relaxed ops out of the plain module', () => {
    for (const t of [GEMM_F32, GEMM_F64]) {
      expect(buildGemmModule(t, { mr: 4, nr: 8 }, true, mem).usesRelaxed).toBe(true);
      expect(buildGemmModule(t, { mr: 4, nr: 8 }, false, mem).usesRelaxed).toBe(false);
    }
  });

  it('computes correctly where relaxed SIMD is enabled', () => {
    const src = (p: string) => JSON.stringify(fileURLToPath(new URL(p, import.meta.url)));
    const script = join(tmpdir(), `mx-gemm-relaxed-${process.pid}.mts`);
    writeFileSync(
      script,
      `import { WasmMemory } from ${src('../memory.ts')};
import { CpuWasmRuntime, detectFeatures } from ${src('../runtime.ts')};
import { GemmEngine } from ${src('./engine.ts')};
import { GEMM_F32 } from ${src('./dtype.ts')};
const rt = new CpuWasmRuntime(new WasmMemory({ initialPages: 16 }), detectFeatures());
const e = new GemmEngine(rt, { tile: { mr: 4, nr: 8 }, threads: 'off' });
const [m, n, k] = [37, 29, 301];
const A = Float32Array.from({ length: m * k }, (_, i) => Math.sin(i));
const B = Float32Array.from({ length: k * n }, (_, i) => Math.cos(i));
const pa = rt.memory.allocator.alloc(m * k * 4), pb = rt.memory.allocator.alloc(k * n * 4), pc = rt.memory.allocator.alloc(m * n * 4);
rt.memory.view('float32', pa, m * k).set(A); rt.memory.view('float32', pb, k * n).set(B);
e.gemm(GEMM_F32, { m, n, k, a: pa, lda: k * 4, transA: false, b: pb, ldb: k * 4, transB: true, c: pc, ldc: n * 4, alpha: 2, accumulate: false });
const C = rt.memory.view('float32', pc, m * n);
let err = 0;
for (let i = 0; i < m; i++) for (let j = 0; j < n; j++) {
  let s = 0; for (let q = 0; q < k; q++) s += A[i * k + q] * B[j * k + q];
  err = Math.max(err, Math.abs(C[i * n + j] - 2 * s));
}
console.log(JSON.stringify({ relaxed: e.relaxed, err }));
`,
    );
    const tsx = fileURLToPath(new URL('../../../../node_modules/tsx/dist/esm/index.mjs', import.meta.url));
    const r = spawnSync(process.execPath, ['--experimental-wasm-relaxed-simd', '--import', tsx, script], {
      timeout: 30_000,
      encoding: 'utf8',
    });
    const line = r.stdout.trim().split('\n').pop() ?? '';
    if (r.status !== 0 && /bad option|not allowed/.test(r.stderr)) {
      console.log(`skipped: this Node has no --experimental-wasm-relaxed-simd (${r.stderr.trim()})`);
      return;
    }
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(line) as { relaxed: boolean; err: number };
    expect(out.relaxed).toBe(true);
    expect(out.err).toBeLessThan(1e-3);
  });
});
