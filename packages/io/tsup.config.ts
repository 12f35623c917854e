/**
 * The shared tsup settings plus `shims`: the embedded data set is found relative to the module's
 * own file (`import.meta.url`), which the CJS build only has when tsup injects its shim.
 * DataBatch and DataIter implement `Disposable`: the typings start with a `lib` reference so
 * consumers compiling for `lib: ["es2022"]` still know `Symbol.dispose` (the d.ts bundler drops
 * `/// <reference lib>` directives from the sources, so it is added here).
 */
import { defineConfig, type Options } from 'tsup';
import shared from '../../tsup.shared.js';

export default defineConfig({
  ...(shared as Options),
  shims: true,
  dts: { banner: '/// <reference lib="esnext.disposable" />' },
});
