import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpu, Env, MXNetError } from '@mx/base';
import { describe, expect, it } from 'vitest';
import { createEngine } from './create-engine.js';
import { NaiveEngine } from './naive-engine.js';
import { Profiler } from './profiler.js';
import { ThreadedEngine } from './threaded-engine.js';

describe('createEngine', () => {
  it('picks the kind from MXNET_ENGINE_TYPE like MXNet', () => {
    const of = (type?: string) =>
      createEngine({ env: new Env(type === undefined ? {} : { MXNET_ENGINE_TYPE: type }) });
    expect(of()).toBeInstanceOf(ThreadedEngine);
    expect(of().typeName).toBe('ThreadedEnginePerDevice');
    expect(of('NaiveEngine')).toBeInstanceOf(NaiveEngine);
    expect(of('ThreadedEngine').typeName).toBe('ThreadedEngine');
    expect(of('ThreadedEnginePerDeviceAsync').kind).toBe('threaded');
  });

  it('lets the kind option override the environment', () => {
    const env = new Env({ MXNET_ENGINE_TYPE: 'NaiveEngine' });
    expect(createEngine({ env, kind: 'threaded' }).kind).toBe('threaded');
    expect(createEngine({ kind: 'naive' }).typeName).toBe('NaiveEngine');
  });

  it('rejects an unknown engine type or kind with MXNetError', () => {
    expect(() => createEngine({ env: new Env({ MXNET_ENGINE_TYPE: 'FastEngine' }) })).toThrow(
      /MXNET_ENGINE_TYPE="FastEngine"[\s\S]*NaiveEngine/,
    );
    expect(() => createEngine({ kind: 'fast' as never })).toThrow(MXNetError);
  });

  it('starts the profiler with MXNET_PROFILER_AUTOSTART', async () => {
    const e = createEngine({ env: new Env({ MXNET_PROFILER_AUTOSTART: '1' }) });
    expect(e.profiler.state).toBe('run');
    e.pushSync(() => {}, cpu(), [], [e.newVariable()], { name: 'auto' });
    await e.waitForAll();
    expect(e.profiler.records().map((r) => r.name)).toEqual(['auto']);
  });
});

describe('Profiler', () => {
  it('records nothing while stopped or paused, and writes a Chrome trace file', async () => {
    const e = createEngine({ kind: 'threaded' });
    const v = e.newVariable();
    e.pushSync(() => {}, cpu(), [], [v], { name: 'unrecorded' });
    await e.waitForAll();
    e.profiler.setState('run');
    e.profiler.pause();
    e.pushSync(() => {}, cpu(), [], [v], { name: 'paused' });
    await e.waitForAll();
    e.profiler.resume();
    e.pushSync(
      () => {
        throw new Error('x');
      },
      cpu(),
      [],
      [v],
      { name: 'fails' },
    );
    e.pushSync(() => {}, cpu(), [v], [], { name: 'skipped' });
    await e.waitForAll().catch(() => {});
    const recs = e.profiler.records();
    expect(recs.map((r) => [r.name, r.failed, r.skipped])).toEqual([
      ['fails', true, false],
      ['skipped', true, true],
    ]);
    expect(recs[0]?.endSeq).toBeLessThan(recs[1]?.startSeq as number);
    const file = join(mkdtempSync(join(tmpdir(), 'mx-prof-')), 'profile.json');
    e.profiler.setConfig({ filename: file });
    expect(await e.profiler.dump()).toBe(file);
    const trace = JSON.parse(readFileSync(file, 'utf8')) as { traceEvents: { ph: string; args?: object }[] };
    expect(trace.traceEvents.filter((t) => t.ph === 'X').map((t) => t.args)).toEqual([
      { failed: true },
      { skipped: true, failed: true },
    ]);
    expect(e.profiler.dumps({ reset: true })).toMatch(/fails/);
    expect(e.profiler.records()).toEqual([]);
  });

  it('rejects an invalid state', () => {
    expect(() => new Profiler().setState('go' as never)).toThrow(/invalid profiler state/);
  });
});
