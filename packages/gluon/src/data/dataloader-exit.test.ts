/**
 * A script that ends with `await loader.dispose()` at the top level (as benchmarks and tutorials
 * do) must finish normally: while the workers close, the process has to stay alive. Before, the
 * idle workers and the grace timer were all unref'd, the event loop emptied, and Node exited with
 * code 13 (an unsettled top-level await). Runs the built package in a child process.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SCRIPT = `
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime } from '@mx/ndarray';
import { data } from '@mx/gluon';
const rt = createRuntime({ backends: [new CpuWasmBackend()] });
const ds = new data.ArrayDataset(Float32Array.from({ length: 64 }, (_, i) => i));
const loader = new data.DataLoader(rt, ds, { batchSize: 8, numWorkers: 2, keepAlive: true });
let n = 0;
for await (const b of loader) { n++; b.dispose(); }
await loader.dispose();
await rt.dispose();
console.log('batches', n);
`;

describe('DataLoader workers and the end of a script', () => {
  it('a top-level await of dispose() finishes with exit code 0', () => {
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', SCRIPT], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(out).toContain('batches 8');
  });
});
