/**
 * Test harness: compile generated kernel sources for real, without a GPU. Two compilers:
 * - nvcc (`-arch=sm_90 -cubin`, CUDA 13 here): sources are concatenated, each in its own
 *   namespace with its entry renamed, into files of up to 150 kernels, compiled one at a time;
 *   an error is mapped back to the kernel (and op) whose lines it points at;
 * - NVRTC through the addon, when a libnvrtc is found (pip's wheel, a toolkit): each source alone,
 *   exactly as DeviceRuntime compiles it.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { type CudaAddon, loadAddon } from '../addon.js';
import { PRELUDE } from '../cuda-c.js';
import { describeStatus, loadLibrary } from '../libraries.js';
import { fullSource, nvrtcOptions } from '../nvrtc.js';
import type { RenderRuntime } from '../render-runtime.js';

const run = promisify(execFile);

/** nvcc's path, or undefined when it is not installed. */
export function findNvcc(): string | undefined {
  for (const p of [process.env.NVCC, '/usr/local/cuda/bin/nvcc', '/usr/local/bin/nvcc', '/usr/bin/nvcc']) {
    if (p && existsSync(p)) return p;
  }
  return undefined;
}

interface Unit {
  readonly key: string;
  readonly ops: string;
  readonly code: string;
}

/** Compile every source `rt` recorded with nvcc; returns `op: error` lines (empty when all compile). */
export async function compileWithNvcc(rt: RenderRuntime, nvcc: string, arch = 'sm_90'): Promise<string[]> {
  const units: Unit[] = [...rt.sources].map(([key, { source, ops }], i) => ({
    key,
    ops: [...ops].join(','),
    code: `namespace mx_unit_${i} {\n${source.code.replaceAll(source.entry, `${source.entry}_u${i}`)}\n}\n`,
  }));
  const dir = mkdtempSync(join(tmpdir(), 'mx-cuda-check-'));
  const chunks: Unit[][] = [];
  for (let i = 0; i < units.length; i += 150) chunks.push(units.slice(i, i + 150));
  const problems: string[] = [];
  try {
    const compileChunk = async (chunk: Unit[], c: number): Promise<void> => {
      let text = PRELUDE;
      const starts: { line: number; unit: Unit }[] = [];
      for (const u of chunk) {
        starts.push({ line: text.split('\n').length, unit: u });
        text += u.code;
      }
      const file = join(dir, `chunk${c}.cu`);
      writeFileSync(file, text);
      try {
        await run(nvcc, [`-arch=${arch}`, '-cubin', '-w', '-o', join(dir, `chunk${c}.cubin`), file], {
          maxBuffer: 64 << 20,
        });
      } catch (e) {
        const err = String((e as { stderr?: string }).stderr ?? e);
        for (const m of err.matchAll(/chunk\d+\.cu\((\d+)\): error: (.*)/g)) {
          const line = Number(m[1]);
          const owner = [...starts].reverse().find((s) => s.line <= line);
          problems.push(`${owner?.unit.ops ?? '?'}: ${m[2]}`);
        }
        if (problems.length === 0) problems.push(`nvcc failed: ${err.slice(0, 2000)}`);
      }
    };
    // One nvcc at a time: CI's two cores run other packages' tests meanwhile.
    for (let c = 0; c < chunks.length; c++) await compileChunk(chunks[c] as Unit[], c);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return problems;
}

/**
 * Compile every source `rt` recorded with NVRTC (through the addon), as DeviceRuntime would;
 * returns `op: error` lines. Undefined when no libnvrtc was found (the caller prints why).
 */
export function compileWithNvrtc(
  rt: RenderRuntime,
  arch = 90,
): { problems: string[]; compiled: number } | string {
  let addon: CudaAddon;
  try {
    addon = loadAddon();
  } catch (e) {
    return (e as Error).message;
  }
  const status = loadLibrary(addon, 'nvrtc');
  if (status.loaded === null) return describeStatus(status);
  const problems: string[] = [];
  let compiled = 0;
  const options = nvrtcOptions(arch);
  for (const { source, ops } of rt.sources.values()) {
    const r = addon.nvrtcCompile(fullSource(source), `${source.entry}.cu`, options);
    if (r.cubin === null) problems.push(`${[...ops].join(',')}: ${r.error}: ${r.log.slice(0, 1500)}`);
    else compiled++;
  }
  return { problems, compiled };
}

/**
 * The two compile tests of a family's rendered runtimes, as vitest cases: nvcc (skipped without
 * it) and NVRTC (skipped with the loader's report without a libnvrtc). `runtimes` is called when
 * the tests run, so it may return runtimes rendered in earlier tests.
 */
export function itCompiles(runtimes: () => readonly RenderRuntime[]): void {
  const nvcc = findNvcc();
  it.skipIf(nvcc === undefined)(
    'compiles every generated kernel with nvcc -arch=sm_90',
    async () => {
      for (const rt of runtimes()) expect(await compileWithNvcc(rt, nvcc as string)).toEqual([]);
    },
    600_000,
  );
  it('compiles every generated kernel with NVRTC where libnvrtc is found', (ctx) => {
    for (const rt of runtimes()) {
      const res = compileWithNvrtc(rt);
      if (typeof res === 'string') {
        console.warn(`NVRTC check skipped: ${res}`);
        ctx.skip();
        return;
      }
      expect(res.problems).toEqual([]);
    }
  }, 600_000);
}
