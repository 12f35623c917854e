/**
 * DMLC_* / PS_* parsing: ps-lite's variables and defaults, our heartbeat defaults, and the
 * refusals (each an MXNetError naming the variable to fix).
 */
import { MXNetError } from '@mx/base';
import { describe, expect, it } from 'vitest';
import { Role } from './api.js';
import { readPsConfig } from './env.js';

const base = {
  DMLC_ROLE: 'worker',
  DMLC_PS_ROOT_URI: '10.0.0.1',
  DMLC_PS_ROOT_PORT: '9091',
  DMLC_NUM_SERVER: '2',
  DMLC_NUM_WORKER: '3',
};

describe('readPsConfig', () => {
  it('reads the DMLC_* job and the PS_* knobs with their defaults', () => {
    const c = readPsConfig(base);
    expect(c).toMatchObject({
      role: Role.Worker,
      rootUri: '10.0.0.1',
      rootPort: 9091,
      numServer: 2,
      numWorker: 3,
    });
    expect(c).toMatchObject({
      verbose: 0,
      resend: false,
      resendTimeoutMs: 1000,
      heartbeatIntervalSec: 1,
      heartbeatTimeoutSec: 10,
      dropRate: 0,
      port: undefined,
    });
    const d = readPsConfig({
      ...base,
      DMLC_ROLE: 'scheduler',
      PS_VERBOSE: '2',
      PS_RESEND: '1',
      PS_RESEND_TIMEOUT: '200',
      PS_HEARTBEAT_INTERVAL: '0',
      PORT: '9000',
      DMLC_NODE_HOST: '10.0.0.5',
    });
    expect(d).toMatchObject({
      role: Role.Scheduler,
      verbose: 2,
      resend: true,
      resendTimeoutMs: 200,
      heartbeatIntervalSec: 0,
      port: 9000,
      nodeHost: '10.0.0.5',
    });
  });

  it.each([
    [{ DMLC_ROLE: 'master' }, 'DMLC_ROLE'],
    [{ DMLC_ROLE: undefined }, 'DMLC_ROLE'],
    [{ DMLC_PS_ROOT_URI: '' }, 'DMLC_PS_ROOT_URI'],
    [{ DMLC_PS_ROOT_URI: 'tcp://x' }, 'DMLC_PS_ROOT_URI'],
    [{ DMLC_PS_ROOT_PORT: 'abc' }, 'DMLC_PS_ROOT_PORT'],
    [{ DMLC_PS_ROOT_PORT: '70000' }, 'DMLC_PS_ROOT_PORT'],
    [{ DMLC_NUM_SERVER: '-1' }, 'DMLC_NUM_SERVER'],
    [{ DMLC_NUM_WORKER: '0' }, 'DMLC_NUM_WORKER'],
    [{ DMLC_NUM_WORKER: '2.5' }, 'DMLC_NUM_WORKER'],
    [{ PORT: 'x' }, 'PORT'],
    [{ PS_VERBOSE: 'loud' }, 'PS_VERBOSE'],
    [{ PS_RESEND_TIMEOUT: '0' }, 'PS_RESEND_TIMEOUT'],
    [{ PS_HEARTBEAT_TIMEOUT: '-3' }, 'PS_HEARTBEAT_TIMEOUT'],
    [{ PS_DROP_MSG: '150' }, 'PS_DROP_MSG'],
    [{ DMLC_PS_VAN_TYPE: 'ibverbs' }, 'DMLC_PS_VAN_TYPE'],
  ])('refuses %o naming %s', (patch, name) => {
    const env: Record<string, string | undefined> = { ...base, ...patch };
    let err: unknown;
    try {
      readPsConfig(env);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(MXNetError);
    expect((err as Error).message).toContain(name);
  });
});
