import { describe, expect, it } from 'vitest';
import { ENV_SETTINGS, Env } from './env.js';
import { MXNetError } from './error.js';

describe('Env', () => {
  it("gives MXNet's documented defaults when unset", () => {
    const env = new Env({});
    expect(env.get('MXNET_ENGINE_TYPE')).toBe('ThreadedEnginePerDevice');
    expect(env.get('MXNET_CPU_WORKER_NTHREADS')).toBe(1);
    expect(env.get('MXNET_GPU_WORKER_NTHREADS')).toBe(2);
    expect(env.get('MXNET_GPU_COPY_NTHREADS')).toBe(2);
    expect(env.get('MXNET_CPU_PRIORITY_NTHREADS')).toBe(4);
    expect(env.get('MXNET_CPU_MEM_POOL_TYPE')).toBe('Naive');
    expect(env.get('MXNET_GPU_POOL_PAGE_SIZE')).toBe(4096);
    expect(env.get('MXNET_CPU_PINNED_MEM_LARGE_ALLOC_ROUND_SIZE')).toBe(2097152);
    expect(env.get('MXNET_GPU_MEM_POOL_ROUND_LINEAR_CUTOFF')).toBe(24);
    expect(env.get('MXNET_GPU_MEM_POOL_RESERVE')).toBe(5);
    expect(env.get('MXNET_CPU_TEMP_COPY')).toBe(4);
    expect(env.get('MXNET_USE_NAIVE_STORAGE_MANAGER')).toBe(false);
    // MXNet: dmlc::GetEnv("MXNET_STORAGE_FALLBACK_LOG_VERBOSE", true).
    expect(env.get('MXNET_STORAGE_FALLBACK_LOG_VERBOSE')).toBe(true);
    for (const [name, spec] of Object.entries(ENV_SETTINGS)) {
      expect(name).toMatch(/^(MXNET|NNVM)_[A-Z0-9_]+$/);
      expect(spec.doc.length).toBeGreaterThan(10);
    }
  });

  it('parses set values', () => {
    const env = new Env({
      MXNET_ENGINE_TYPE: 'NaiveEngine',
      MXNET_CPU_WORKER_NTHREADS: ' 3 ',
      MXNET_USE_NAIVE_STORAGE_MANAGER: 'true',
      MXNET_PROFILER_AUTOSTART: '1',
      MXNET_GPU_MEM_POOL_TYPE: 'Round',
    });
    expect(env.get('MXNET_ENGINE_TYPE')).toBe('NaiveEngine');
    expect(env.get('MXNET_CPU_WORKER_NTHREADS')).toBe(3);
    expect(env.get('MXNET_USE_NAIVE_STORAGE_MANAGER')).toBe(true);
    expect(env.get('MXNET_PROFILER_AUTOSTART')).toBe(true);
    expect(env.get('MXNET_GPU_MEM_POOL_TYPE')).toBe('Round');
    expect(env.with({ MXNET_CPU_WORKER_NTHREADS: 5 }).get('MXNET_CPU_WORKER_NTHREADS')).toBe(5);
    expect(env.get('MXNET_CPU_WORKER_NTHREADS')).toBe(3);
    expect(env.raw('MXNET_ENGINE_TYPE')).toBe('NaiveEngine');
    expect(env.isSet('MXNET_GPU_TEMP_COPY')).toBe(false);
    for (const off of ['0', 'false', ' FALSE '])
      expect(
        new Env({ MXNET_STORAGE_FALLBACK_LOG_VERBOSE: off }).get('MXNET_STORAGE_FALLBACK_LOG_VERBOSE'),
      ).toBe(false);
  });

  it('rejects malformed values with an MXNetError naming the variable and the valid values', () => {
    const get = (k: string, v: string) => () => new Env({ [k]: v }).get(k as never);
    expect(get('MXNET_CPU_MEM_POOL_TYPE', 'Foo')).toThrow(MXNetError);
    expect(get('MXNET_CPU_MEM_POOL_TYPE', 'Foo')).toThrow(
      /MXNET_CPU_MEM_POOL_TYPE="Foo".*\n.*Naive, Round, Unpooled/,
    );
    expect(get('MXNET_CPU_WORKER_NTHREADS', 'two')).toThrow(/not an integer/);
    expect(get('MXNET_CPU_WORKER_NTHREADS', '0')).toThrow(/out of range/);
    expect(get('MXNET_GPU_MEM_POOL_ROUND_LINEAR_CUTOFF', '35')).toThrow(/\[20, 34\]/);
    expect(get('MXNET_ENGINE_INFO', 'maybe')).toThrow(/not a boolean/);
    expect(get('MXNET_STORAGE_FALLBACK_LOG_VERBOSE', 'quiet')).toThrow(
      /MXNET_STORAGE_FALLBACK_LOG_VERBOSE="quiet" is not a boolean/,
    );
  });

  it('reads process.env in Node and works without process', () => {
    process.env.MXNET_GPU_TEMP_COPY = '3';
    try {
      expect(Env.fromProcess().get('MXNET_GPU_TEMP_COPY')).toBe(3);
    } finally {
      delete process.env.MXNET_GPU_TEMP_COPY;
    }
    const g = globalThis as { process?: unknown };
    const saved = g.process;
    g.process = undefined;
    try {
      expect(Env.fromProcess().get('MXNET_GPU_TEMP_COPY')).toBe(1);
    } finally {
      g.process = saved;
    }
  });
});
