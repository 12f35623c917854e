// Packs the GPU checks for a machine with a CUDA device and no Node toolchain (see
// scripts/device-check.ts): bundles device-check.ts and bench/run.ts with all they import into
// `.devcheck/` (with examples/gpu-lenet; same depth as bench/, so the bench finds tools/peers/python/torch_cuda.py and the
// addon's package root is this package), builds the addon if needed, and puts an xz-compressed,
// stripped copy of this Node binary beside them. What to carry and run is printed at the end.
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const out = join(root, '.devcheck');
mkdirSync(out, { recursive: true });
for (const f of ['check.mjs.xz', 'bench.mjs.xz', 'lenet.mjs.xz', 'compare.mjs.xz'])
  rmSync(join(out, f), { force: true });

if (!existsSync(join(root, 'prebuilds', 'linux-x64', 'node.napi.node')))
  execFileSync(process.execPath, [join(root, 'scripts', 'build-addon.mjs')], { stdio: 'inherit' });

// CommonJS dependencies bundled into ESM still call require(): give them Node's.
const banner = "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);";
for (const [entry, file] of [
  ['scripts/device-check.ts', 'check.mjs'],
  ['bench/run.ts', 'bench.mjs'],
  ['../../examples/gpu-lenet/src/main.ts', 'lenet.mjs'],
  ['../../examples/gpu-lenet/src/compare.ts', 'compare.mjs'],
]) {
  await build({
    entryPoints: [join(root, entry)],
    outfile: join(out, file),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    banner: { js: banner },
    external: ['node-gyp-build'],
    logLevel: 'warning',
  });
}

// The Node binary is compressed once (it takes a minute); delete .devcheck/node.xz to redo it.
const node = join(out, 'node');
if (!existsSync(`${node}.xz`)) {
  copyFileSync(process.execPath, node);
  execFileSync('strip', [node]);
  execFileSync('xz', ['-T0', '-6', node]);
}
for (const f of ['check.mjs', 'bench.mjs', 'lenet.mjs', 'compare.mjs'])
  execFileSync('xz', ['-T0', '-9', join(out, f)]);

// The addon loader requires node-gyp-build at run time: a real copy beside the bundles.
cpSync(join(root, 'node_modules', 'node-gyp-build'), join(out, 'node_modules', 'node-gyp-build'), {
  recursive: true,
  dereference: true,
});

const mb = (f) => (statSync(join(out, f)).size / 2 ** 20).toFixed(1);
console.log(
  `node.xz ${mb('node.xz')} MiB, check.mjs.xz ${mb('check.mjs.xz')} MiB, bench.mjs.xz ${mb('bench.mjs.xz')} MiB`,
);
console.log('carry: packages/cuda-native/.devcheck, packages/cuda-native/prebuilds');
console.log(
  'run: cd packages/cuda-native/.devcheck && xz -d *.xz && chmod +x node && ./node check.mjs "$OUT"',
);
