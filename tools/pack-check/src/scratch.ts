/**
 * The scratch project: `pnpm pack` of every publishable package into a folder under the OS temp dir
 * (outside the workspace, so nothing resolves through the monorepo's node_modules), an npm project
 * there depending on the tarballs by `file:` path (with `overrides`, so the packages' own @mx
 * dependencies resolve to the same tarballs and never to the registry), `npm install`, and a runner
 * that executes one example file with Node and returns the lines it printed.
 */
import { type SpawnOptions, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { PRINT_MARK } from './examples.js';
import { REPO_ROOT, type WorkspacePackage } from './workspace.js';

export interface ProcessResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
  readonly timedOut: boolean;
}

/** Run a command, collecting its output; killed (and reported) after `timeoutMs`. */
export function run(
  command: string,
  args: readonly string[],
  options: SpawnOptions & { timeoutMs: number },
): Promise<ProcessResult> {
  const t = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout?.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(new Error(`cannot run ${command}: ${e.message}`));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: performance.now() - t, timedOut });
    });
  });
}

const describe = (what: string, r: ProcessResult): string =>
  `${what} ${r.timedOut ? 'timed out' : `exited with ${r.code}`}\n${r.stderr.slice(-4000)}${r.stdout.slice(-2000)}`;

/** The environment for npm: pnpm's per-script `npm_*` variables removed, registry settings kept. */
function npmEnv(): NodeJS.ProcessEnv {
  const keep = /^npm_config_(registry|cache|proxy|https_proxy|noproxy|cafile|strict_ssl)$/i;
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) || keep.test(k)));
}

export interface Packed {
  readonly name: string;
  readonly version: string;
  /** Absolute path of the .tgz. */
  readonly tarball: string;
}

/** `pnpm pack` every package of `packages` into `dest` (one pnpm call). */
export async function packAll(packages: readonly WorkspacePackage[], dest: string): Promise<Packed[]> {
  mkdirSync(dest, { recursive: true });
  const filters = packages.flatMap((p) => ['--filter', p.name]);
  const r = await run('pnpm', ['-r', ...filters, 'pack', '--pack-destination', dest, '--json'], {
    cwd: REPO_ROOT,
    timeoutMs: 120_000,
  });
  if (r.code !== 0) throw new Error(describe('pnpm pack', r));
  const start = r.stdout.indexOf('[');
  const parsed = JSON.parse(r.stdout.slice(start)) as { name: string; version: string; filename: string }[];
  const out = parsed.map((p) => ({ name: p.name, version: p.version, tarball: p.filename }));
  const missing = packages.filter((p) => !out.some((o) => o.name === p.name)).map((p) => p.name);
  if (missing.length > 0) throw new Error(`pnpm pack produced no tarball for ${missing.join(', ')}`);
  return out;
}

/** Create the scratch project in `dir` and `npm install` the tarballs into it. */
export async function installScratch(dir: string, packed: readonly Packed[]): Promise<ProcessResult> {
  const deps = Object.fromEntries(packed.map((p) => [p.name, `file:${p.tarball}`]));
  const manifest = {
    name: 'mx-pack-check-scratch',
    version: '0.0.0',
    private: true,
    description: 'Scratch project of the @mx pack check: the packed tarballs, installed by npm',
    dependencies: deps,
    overrides: deps,
  };
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const r = await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], {
    cwd: dir,
    env: npmEnv(),
    timeoutMs: 180_000,
  });
  if (r.code !== 0) throw new Error(describe('npm install', r));
  return r;
}

/** Problems with the installed tree: every @mx package from its tarball, once, inside the scratch. */
export function installProblems(dir: string, packed: readonly Packed[]): string[] {
  const problems: string[] = [];
  const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { resolved?: string; version?: string }>;
  };
  const req = createRequire(join(dir, 'package.json'));
  for (const p of packed) {
    const entries = Object.entries(lock.packages).filter(([path]) => path.endsWith(`node_modules/${p.name}`));
    if (entries.length !== 1) {
      problems.push(`${p.name}: installed ${entries.length} times (${entries.map((e) => e[0]).join(', ')})`);
    }
    for (const [path, e] of entries) {
      if (!e.resolved?.startsWith('file:') || !e.resolved.endsWith('.tgz')) {
        problems.push(`${p.name}: ${path} came from ${e.resolved}, not from its tarball`);
      }
      if (e.version !== p.version)
        problems.push(`${p.name}: ${path} has version ${e.version}, packed ${p.version}`);
    }
    // require() must reach the CommonJS build inside the scratch project, not the ESM one or the workspace.
    const resolved = req.resolve(p.name);
    if (resolved !== join(dir, 'node_modules', p.name, 'dist', 'index.cjs')) {
      problems.push(`require('${p.name}') resolves to ${resolved}, not the scratch project's dist/index.cjs`);
    }
  }
  return problems;
}

export interface NodeRun {
  readonly printed: readonly string[];
  readonly result: ProcessResult;
}

/** Run one example file with Node in `cwd`; `printed` holds what it printed with console.log. */
export async function runNodeExample(file: string, cwd: string, timeoutMs = 60_000): Promise<NodeRun> {
  const result = await run(process.execPath, [file], { cwd, timeoutMs, env: npmEnv() });
  const printed = result.stdout
    .split('\n')
    .filter((l) => l.startsWith(PRINT_MARK))
    .map((l) => l.slice(PRINT_MARK.length));
  return { printed, result };
}
