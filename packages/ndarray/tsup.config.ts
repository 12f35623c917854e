/**
 * The shared tsup settings. NDArray implements `Disposable` (`using x = nd.array(...)`): the typings
 * start with a `lib` reference so consumers compiling for `lib: ["es2022"]` still know
 * `Symbol.dispose` (the d.ts bundler drops `/// <reference lib>` directives from the sources, so it
 * is added here).
 */
import { defineConfig, type Options } from 'tsup';
import shared from '../../tsup.shared.js';

export default defineConfig({
  ...(shared as Options),
  dts: { banner: '/// <reference lib="esnext.disposable" />' },
});
