/**
 * The shared settings, with this package's test files run one at a time: its checks are CPU-bound
 * (nvcc, NVRTC, g++ builds and the threaded host emulation), and CI's two cores also run other
 * packages' timing-sensitive tests (kvstore's multi-process ZeroMQ jobs) at the same time.
 */
import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.js';

export default mergeConfig(shared, defineConfig({ test: { maxWorkers: 1 } }));
