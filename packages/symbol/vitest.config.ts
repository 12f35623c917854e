/**
 * Most tests run on cpu-wasm; the executor's WebGPU test runs on a real device. In Node that is Dawn
 * (the `webgpu` package) on Chromium's SwiftShader Vulkan driver when no GPU driver is installed:
 * the environment below points the Vulkan loader at it, before vitest forks its workers, so it
 * applies from process start (the dynamic loader reads LD_LIBRARY_PATH then), as in @mx/webgpu.
 * `MX_WEBGPU_DRIVER=system` keeps the machine's own driver.
 */
import { existsSync } from 'node:fs';
import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.js';

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
