/**
 * The shared tsup settings. Executors and CachedOps implement `Disposable`: the typings start with a
 * `lib` reference so consumers compiling for `lib: ["es2022"]` still know `Symbol.dispose`.
 */
import { defineConfig, type Options } from 'tsup';
import shared from '../../tsup.shared.js';

export default defineConfig({
  ...(shared as Options),
  dts: { banner: '/// <reference lib="esnext.disposable" />' },
});
