/**
 * The shared tsup settings with two entries: the package (`@mx/kvstore`, for Node and browsers)
 * and `@mx/kvstore/launch` (mx-launch's Node-only process management, kept out of the main entry
 * so browser bundles never see child_process or net), plus a `lib` reference at the top of the
 * typings: stores implement `Disposable`, and consumers compiling for `lib: ["es2022"]` must still
 * know `Symbol.dispose` (the d.ts bundler drops `/// <reference lib>` from the sources).
 */
import { defineConfig, type Options } from 'tsup';
import shared from '../../tsup.shared.js';

export default defineConfig({
  ...(shared as Options),
  entry: { index: 'src/index.ts', launch: 'src/launch/index.ts' },
  dts: { banner: '/// <reference lib="esnext.disposable" />' },
});
