/**
 * Vitest settings for packages whose tests run on a real WebGPU device (@mx/webgpu, and @mx/symbol's
 * executor/CachedOp device tests). In Node that is Dawn (the `webgpu` package) on Chromium's
 * SwiftShader Vulkan driver when no GPU driver is installed: the environment below points the
 * Vulkan loader at it. It is set when the config loads, before vitest forks its workers, so it
 * applies from process start (the dynamic loader reads LD_LIBRARY_PATH then).
 * `MX_WEBGPU_DRIVER=system` keeps the machine's own driver. (The crashes toolchain.md §2 blamed on
 * TurboFan were Dawn's instance being garbage-collected under a live device; the runtime now holds
 * it, and no V8 flag is needed.)
 */
import { existsSync } from 'node:fs';
import { defineConfig, mergeConfig } from 'vitest/config';
import shared from './vitest.shared.js';

const SWIFTSHADER = '/usr/lib/chromium/vk_swiftshader_icd.json';
if (
  process.env.VK_ICD_FILENAMES === undefined &&
  existsSync(SWIFTSHADER) &&
  process.env.MX_WEBGPU_DRIVER !== 'system'
) {
  process.env.VK_ICD_FILENAMES = SWIFTSHADER;
  process.env.LD_LIBRARY_PATH = ['/usr/lib/chromium', process.env.LD_LIBRARY_PATH].filter(Boolean).join(':');
}

export default mergeConfig(
  shared,
  defineConfig({
    test: {
      pool: 'forks',
      testTimeout: 120_000,
      hookTimeout: 60_000,
    },
  }),
);
