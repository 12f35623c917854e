/**
 * Where the CUDA libraries are looked for, and how a failure is reported. The order follows what
 * users of CUDA frameworks expect (and what tfjs-node-gpu's "Could not load dynamic library"
 * reports never told them):
 * 1. `MX_CUDA_LIB_DIR` (colon-separated folders), so a user can point at any install;
 * 2. the bare soname, resolved by the system loader (LD_LIBRARY_PATH, ldconfig's cache);
 * 3. the usual driver and toolkit folders (`/usr/lib/x86_64-linux-gnu`, WSL's, `/usr/local/cuda*`);
 * 4. pip's `nvidia/<component>/lib` folders (PyTorch's CUDA wheels) in the Python environments
 *    found on the machine (virtualenv, conda, pyenv, user and system site-packages).
 * CUDA 13 sonames are tried before CUDA 12 in every folder. NVRTC dlopens its builtins library by
 * soname and libcublas needs libcublasLt: when a folder holds them, they are preloaded first.
 * Only files that exist are handed to dlopen; folders without the library are reported as
 * searched, so the error lists every place looked at.
 */
import { existsSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { MXNetError } from '@mx/base';
import type { CudaAddon, LibraryReport } from './addon.js';

/** Environment variables as the loader reads them (process.env in Node). */
export type EnvVars = Readonly<Record<string, string | undefined>>;

/** The libraries the backend loads at run time. */
export type CudaLibrary = 'driver' | 'nvrtc' | 'cublas';

const SONAMES: Readonly<Record<CudaLibrary, readonly string[]>> = {
  driver: ['libcuda.so.1'],
  nvrtc: ['libnvrtc.so.13', 'libnvrtc.so.12'],
  cublas: ['libcublas.so.13', 'libcublas.so.12'],
};

/** What each library is for, for messages. */
const ROLE: Readonly<Record<CudaLibrary, string>> = {
  driver: 'the CUDA driver (libcuda, installed with the NVIDIA driver)',
  nvrtc: 'NVRTC, the run-time CUDA compiler every kernel is built with',
  cublas: 'cuBLAS, used by dot, batch_dot, FullyConnected and the linalg GEMMs',
};

const HINT: Readonly<Record<CudaLibrary, string>> = {
  driver:
    'install an NVIDIA driver for CUDA 12 or 13 (nvidia-smi must work), or set MX_CUDA_LIB_DIR to the folder of libcuda.so.1',
  nvrtc:
    'install the CUDA toolkit (12 or 13) or `pip install nvidia-cuda-nvrtc`, or set MX_CUDA_LIB_DIR to the folder of libnvrtc.so.13',
  cublas:
    'install the CUDA toolkit (12 or 13) or `pip install nvidia-cublas`, or set MX_CUDA_LIB_DIR to the folder of libcublas.so.13',
};

function list(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function pythonSitePackages(env: EnvVars): string[] {
  const out: string[] = [];
  const pyDirs = (prefix: string): void => {
    const lib = join(prefix, 'lib');
    for (const py of list(lib).filter((d) => /^python3(\.\d+)?$/.test(d))) {
      out.push(join(lib, py, 'site-packages'), join(lib, py, 'dist-packages'));
    }
  };
  if (env.VIRTUAL_ENV) pyDirs(env.VIRTUAL_ENV);
  if (env.CONDA_PREFIX) pyDirs(env.CONDA_PREFIX);
  const home = env.HOME ?? homedir();
  pyDirs(join(home, '.local'));
  const pyenv = env.PYENV_ROOT ?? join(home, '.pyenv');
  for (const v of list(join(pyenv, 'versions'))) pyDirs(join(pyenv, 'versions', v));
  pyDirs('/usr/local');
  pyDirs('/usr');
  out.push('/usr/lib/python3/dist-packages');
  return out.filter((d) => existsSync(d));
}

/** The folders searched for `lib`, in order (without the loader-path step). */
export function searchFolders(lib: CudaLibrary, env: EnvVars = process.env): string[] {
  const dirs: string[] = [];
  for (const d of (env.MX_CUDA_LIB_DIR ?? '').split(':')) if (d) dirs.push(d);
  if (lib === 'driver') {
    dirs.push('/usr/lib/x86_64-linux-gnu', '/usr/lib64', '/usr/lib/wsl/lib', '/usr/local/nvidia/lib64');
  } else {
    const cudas = list('/usr/local')
      .filter((d) => /^cuda(-\d+(\.\d+)?)?$/.test(d))
      .sort((a, b) => (a === 'cuda' ? -1 : b === 'cuda' ? 1 : b.localeCompare(a, 'en', { numeric: true })));
    for (const c of cudas) dirs.push(join('/usr/local', c, 'lib64'), join('/usr/local', c, 'lib'));
    for (const site of pythonSitePackages(env)) {
      for (const comp of list(join(site, 'nvidia')).sort().reverse())
        dirs.push(join(site, 'nvidia', comp, 'lib'));
    }
  }
  return [...new Set(dirs)];
}

/** One candidate for dlopen, and what to preload before it. */
export interface Candidate {
  readonly path: string;
  readonly preload: readonly string[];
}

/** Candidates for `lib`: MX_CUDA_LIB_DIR files, the bare sonames, then files in the other folders. */
export function candidates(lib: CudaLibrary, env: EnvVars = process.env): Candidate[] {
  const out: Candidate[] = [];
  const fromDir = (dir: string): void => {
    const files = list(dir);
    for (const so of SONAMES[lib]) {
      if (!files.includes(so)) continue;
      const major = so.slice(so.lastIndexOf('.') + 1);
      const pre =
        lib === 'nvrtc'
          ? files.filter((f) => f.startsWith(`libnvrtc-builtins.so.${major}`) && !f.includes('.alt.'))
          : lib === 'cublas'
            ? files.filter((f) => f === `libcublasLt.so.${major}`)
            : [];
      out.push({ path: join(dir, so), preload: pre.map((f) => join(dir, f)) });
    }
  };
  const userDirs = (env.MX_CUDA_LIB_DIR ?? '').split(':').filter((d) => d);
  for (const d of userDirs) fromDir(d);
  for (const so of SONAMES[lib]) out.push({ path: so, preload: [] });
  for (const d of searchFolders(lib, env)) if (!userDirs.includes(d)) fromDir(d);
  return out;
}

/** The outcome of loading one library: the report, plus the folders searched without a match. */
export interface LibraryStatus extends LibraryReport {
  readonly library: CudaLibrary;
  readonly searched: readonly string[];
}

/** Load `lib` through the addon (a loaded library stays loaded; calling again only reports). */
export function loadLibrary(addon: CudaAddon, lib: CudaLibrary, env: EnvVars = process.env): LibraryStatus {
  const cands = candidates(lib, env);
  // Preloads only matter for the candidate that is taken; a failed preload shows up as that
  // candidate's own error (NVRTC reports the missing builtins when it compiles).
  for (const c of cands) for (const p of c.preload) addon.preload(p);
  const report = addon.load({ [lib]: cands.map((c) => c.path) })[lib] as LibraryReport;
  const withFiles = new Set(cands.map((c) => c.path.slice(0, c.path.lastIndexOf('/'))));
  const searched = searchFolders(lib, env).filter((d) => !withFiles.has(d));
  return { ...report, library: lib, searched };
}

/** A readable account of one library's search, for error messages and `probeCuda().text`. */
export function describeStatus(s: LibraryStatus): string {
  const lines = [
    `${s.library}: ${ROLE[s.library]}: ${s.loaded !== null ? `loaded ${s.loaded}` : 'NOT FOUND'}`,
  ];
  if (s.loaded === null) {
    for (const t of s.tried) lines.push(`  tried ${t.path}: ${t.error}`);
    if (s.searched.length > 0) {
      lines.push(`  no ${SONAMES[s.library].join(' or ')} in: ${s.searched.join(', ')}`);
    }
  }
  return lines.join('\n');
}

/** The MXNetError for libraries that did not load (one line block per library, and each hint). */
export function missingLibrariesError(
  missing: readonly LibraryStatus[],
  op = 'createCudaBackend',
): MXNetError {
  const names = missing.map((s) => s.library).join(', ');
  return new MXNetError(`CUDA libraries not found: ${names}\n${missing.map(describeStatus).join('\n')}`, {
    op,
    device: 'gpu',
    hint: missing.map((s) => HINT[s.library]).join('; '),
  });
}
