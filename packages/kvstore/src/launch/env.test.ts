/**
 * Each role's environment as dmlc's tracker sets it (tracker.py PSTracker for the scheduler,
 * local.py and ssh.py for the nodes), the precedence of --env pairs, the local plan, and the
 * scheduler's port scan.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MXNetError } from '@mx/base';
import { describe, expect, it } from 'vitest';
import { buildEnv, findFreePort, pickEnv } from './env.js';
import { localProgram, planLocal } from './launchers.js';

const common = { numWorkers: 2, numServers: 3, rootUri: '10.0.0.5', rootPort: 9092 };

describe('buildEnv', () => {
  it('gives the scheduler its role and the root address (no task id)', () => {
    expect(buildEnv({ ...common, role: 'scheduler', index: 0, launcher: 'local' })).toEqual({
      DMLC_NUM_WORKER: '2',
      DMLC_NUM_SERVER: '3',
      DMLC_PS_ROOT_URI: '10.0.0.5',
      DMLC_PS_ROOT_PORT: '9092',
      DMLC_ROLE: 'scheduler',
    });
  });

  it('numbers local tasks workers first (local.py) and marks the cluster local', () => {
    const w1 = buildEnv({ ...common, role: 'worker', index: 1, launcher: 'local' });
    expect(w1).toMatchObject({ DMLC_ROLE: 'worker', DMLC_TASK_ID: '1', DMLC_JOB_CLUSTER: 'local' });
    const s2 = buildEnv({ ...common, role: 'server', index: 2, launcher: 'local' });
    expect(s2).toMatchObject({ DMLC_ROLE: 'server', DMLC_TASK_ID: '4', DMLC_JOB_CLUSTER: 'local' });
    expect(s2).not.toHaveProperty('DMLC_NODE_HOST');
  });

  it('sets DMLC_NODE_HOST for ssh nodes (ssh.py) and needs the host', () => {
    const env = buildEnv({ ...common, role: 'server', index: 0, launcher: 'ssh', nodeHost: 'h7' });
    expect(env).toMatchObject({ DMLC_ROLE: 'server', DMLC_NODE_HOST: 'h7' });
    expect(env).not.toHaveProperty('DMLC_TASK_ID');
    expect(() => buildEnv({ ...common, role: 'worker', index: 0, launcher: 'ssh' })).toThrow(MXNetError);
  });

  it('layers base < --env < role pairs < the launcher DMLC_* values', () => {
    const o = {
      ...common,
      launcher: 'local' as const,
      base: { PATH: '/bin', A: 'base', B: 'base', DMLC_ROLE: 'worker', DMLC_INTERFACE: 'eth0', U: undefined },
      env: [['A', 'env'] as const, ['B', 'env'] as const, ['DMLC_PS_ROOT_PORT', '1'] as const],
      envServer: [['B', 'server'] as const],
      envWorker: [['B', 'worker'] as const],
    };
    const sched = buildEnv({ ...o, role: 'scheduler', index: 0 });
    expect(sched).toMatchObject({
      PATH: '/bin',
      A: 'env',
      B: 'env',
      DMLC_ROLE: 'scheduler',
      DMLC_PS_ROOT_PORT: '9092',
    });
    expect(sched).toHaveProperty('DMLC_INTERFACE', 'eth0');
    expect(sched).not.toHaveProperty('U');
    expect(buildEnv({ ...o, role: 'server', index: 0 }).B).toBe('server');
    expect(buildEnv({ ...o, role: 'worker', index: 0 }).B).toBe('worker');
  });

  it('pickEnv keeps the named variables that are set', () => {
    expect(pickEnv({ A: '1', B: undefined, C: '3' }, ['A', 'B', 'D'])).toEqual({ A: '1' });
  });
});

describe('planLocal', () => {
  it('starts one scheduler, the workers and the servers with the same command', () => {
    const specs = planLocal({
      numWorkers: 2,
      numServers: 1,
      command: ['node', 'train.js'],
      rootPort: 9500,
      baseEnv: { PATH: '/bin' },
      cwd: '/nonexistent-dir',
    });
    expect(specs.map((s) => [s.role, s.index, s.env.DMLC_ROLE, s.env.DMLC_TASK_ID])).toEqual([
      ['scheduler', 0, 'scheduler', undefined],
      ['worker', 0, 'worker', '0'],
      ['worker', 1, 'worker', '1'],
      ['server', 0, 'server', '2'],
    ]);
    for (const s of specs) {
      expect(s.argv).toEqual(['node', 'train.js']);
      expect(s.env).toMatchObject({ PATH: '/bin', DMLC_PS_ROOT_URI: '127.0.0.1', DMLC_PS_ROOT_PORT: '9500' });
    }
  });

  it("runs a bare program name found in the working directory as ./name (local.py's rule)", () => {
    const dir = mkdtempSync(join(tmpdir(), 'mx-launch-prog-'));
    writeFileSync(join(dir, 'train.sh'), '#!/bin/sh\n');
    expect(localProgram(['train.sh', 'x'], dir)).toEqual(['./train.sh', 'x']);
    expect(localProgram(['node', 'x'], dir)).toEqual(['node', 'x']);
    expect(localProgram(['bin/train.sh'], dir)).toEqual(['bin/train.sh']);
  });
});

describe('findFreePort', () => {
  it('skips ports in use and scans from 9091 by default', async () => {
    const first = await findFreePort(40100, 40200);
    const busy: Server = createServer();
    await new Promise<void>((r) => busy.listen({ port: first, host: '0.0.0.0' }, r));
    try {
      const next = await findFreePort(first, first + 50);
      expect(next).toBeGreaterThan(first);
      await expect(findFreePort(first, first + 1)).rejects.toThrow(/no free port/);
    } finally {
      await new Promise((r) => busy.close(r));
    }
    const dflt = await findFreePort();
    expect(dflt).toBeGreaterThanOrEqual(9091);
    expect(dflt).toBeLessThan(9999);
  });
});
