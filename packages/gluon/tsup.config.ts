/**
 * The shared tsup settings, plus a `lib` reference at the top of the typings: RecordFileDataset
 * and parameter files implement `Disposable`, and consumers compiling for `lib: ["es2022"]` must
 * still know `Symbol.dispose` (the d.ts bundler drops `/// <reference lib>` from the sources).
 */
import { defineConfig, type Options } from 'tsup';
import shared from '../../tsup.shared.js';

export default defineConfig({
  ...(shared as Options),
  dts: { banner: '/// <reference lib="esnext.disposable" />' },
});
