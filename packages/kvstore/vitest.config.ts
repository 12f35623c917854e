/**
 * The settings of packages with WebGPU device tests (vitest.webgpu.ts: Dawn on SwiftShader when no
 * GPU driver is installed), plus `@mx/kvstore` itself resolved from source for the README examples
 * (the shared alias list names the packages that existed before this one).
 */
import { fileURLToPath } from 'node:url';
import { mergeConfig } from 'vitest/config';
import webgpu from '../../vitest.webgpu.js';

export default mergeConfig(webgpu, {
  resolve: {
    alias: [{ find: '@mx/kvstore', replacement: fileURLToPath(new URL('./src/index.ts', import.meta.url)) }],
  },
});
