/**
 * Builds the addon with node-gyp, offline: Node's own headers (the install's include/node, as
 * Debian's nodejs and the official tarballs ship them) instead of a header download, and copies the
 * binary to prebuilds/linux-x64/node.napi.node, the file node-gyp-build loads and the packed
 * tarball carries — so users of the published package need neither a compiler nor a download.
 * The addon links no CUDA library (it dlopens them at run time), so this needs only g++ and make.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const target = join(root, 'prebuilds', 'linux-x64', 'node.napi.node');

// `--if-needed` (prepack): keep a prebuilt newer than every native source.
if (process.argv.includes('--if-needed') && existsSync(target)) {
  const built = statSync(target).mtimeMs;
  const native = join(root, 'native');
  const newer = readdirSync(native).filter(
    (f) => /\.(cc|h|gyp)$/.test(f) && statSync(join(native, f)).mtimeMs > built,
  );
  if (newer.length === 0) {
    console.log('@mx/cuda-native: prebuilds/linux-x64/node.napi.node is up to date');
    process.exit(0);
  }
}
const nodedir = dirname(dirname(process.execPath));
if (!existsSync(join(nodedir, 'include', 'node', 'node_api.h'))) {
  console.error(
    `@mx/cuda-native: Node's headers are not at ${join(nodedir, 'include', 'node')}; ` +
      'install them (Debian: apt-get install libnode-dev) so the addon builds without a download',
  );
  process.exit(1);
}
const gyp = createRequire(import.meta.url).resolve('node-gyp/bin/node-gyp.js');
execFileSync(
  process.execPath,
  [gyp, 'rebuild', '--directory', join(root, 'native'), `--nodedir=${nodedir}`, '--loglevel=warn'],
  {
    stdio: 'inherit',
  },
);
const out = join(root, 'prebuilds', 'linux-x64');
mkdirSync(out, { recursive: true });
// Copy, then rename over the old file: a process that has the old addon loaded keeps its mapping.
const tmp = join(out, `node.napi.node.${process.pid}.tmp`);
copyFileSync(join(root, 'native', 'build', 'Release', 'mx_cuda.node'), tmp);
renameSync(tmp, target);
console.log('@mx/cuda-native: built prebuilds/linux-x64/node.napi.node');
