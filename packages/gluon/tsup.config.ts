/**
 * The shared tsup settings, plus `shims` (the CJS build fills in `import.meta.url`, which DataLoader
 * workers use to find the built package) and a `lib` reference at the top of the typings: RecordFileDataset
 * and parameter files implement `Disposable`, and consumers compiling for `lib: ["es2022"]` must
 * still know `Symbol.dispose` (the d.ts bundler drops `/// <reference lib>` from the sources).
 */
import { defineConfig, type Options } from 'tsup';
import shared from '../../tsup.shared.js';

export default defineConfig({
  ...(shared as Options),
  shims: true,
  dts: { banner: '/// <reference lib="esnext.disposable" />' },
});
