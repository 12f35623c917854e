/**
 * tsup settings shared by every published package (each package's tsup.config.ts re-exports
 * this): one entry, ESM + CJS + d.ts, ES2022. `tsconfig.build.json` leaves tests out and strips
 * `@internal` declarations from the typings.
 */
import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'es2022',
  tsconfig: 'tsconfig.build.json',
});
