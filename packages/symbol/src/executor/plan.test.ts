/**
 * planBind reports what simpleBind would plan without allocating: the same planned bytes as a real
 * executor of the same symbol and settings, nothing allocated on the runtime, MXNet's errors for
 * what cannot be inferred.
 */
import { Env } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import { SymbolApi } from '../symbol/index.js';
import { planBind } from './index.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })], env: new Env() });
const sym = new SymbolApi(rt);
afterAll(() => rt.dispose());

function mlp() {
  const data = sym.var('data');
  const h = sym.Activation(sym.FullyConnected(data, { num_hidden: 64, name: 'fc1' }), { act_type: 'relu' });
  const o = sym.FullyConnected(h, { num_hidden: 10, name: 'fc2' });
  return sym.SoftmaxOutput(sym.exp(sym.tanh(o)), { name: 'softmax' });
}

describe('planBind', () => {
  it('plans what simpleBind allocates, without allocating', () => {
    const net = mlp();
    const shapes = { data: [32, 100] };
    for (const fusion of [true, false]) {
      const before = rt.memory();
      const plan = planBind(rt.registry, net, { shapes, fusion });
      expect(rt.memory().bytes).toBe(before.bytes);
      const exe = net.simpleBind({ shapes, fusion });
      expect(plan.plannedBytes).toBe(exe.plannedBytes);
      expect(plan.numNodes).toBe(exe.numNodes);
      expect(plan.fusedNodes).toBe(fusion ? 1 : 0);
      exe.dispose();
      // Arguments: data 32x100, fc1 64x100 + 64, fc2 10x64 + 10, label 32 (float32).
      expect(plan.argBytes).toBe(4 * (3200 + 6400 + 64 + 640 + 10 + 32));
      expect(plan.gradBytes).toBe(plan.argBytes);
      expect(plan.plannedBytes).toBeLessThan(plan.naiveBytes);
    }
  });

  it('reads the planning settings from the env and gradReq', () => {
    const net = mlp();
    const shapes = { data: [32, 100] };
    const inplaceOff = planBind(rt.registry, net, {
      shapes,
      env: new Env({ MXNET_EXEC_ENABLE_INPLACE: '0' }),
    });
    const reuseOff = planBind(rt.registry, net, { shapes, env: new Env({ NNVM_EXEC_MATCH_RANGE: '0' }) });
    const base = planBind(rt.registry, net, { shapes });
    expect(inplaceOff.plannedBytes).toBeGreaterThan(base.plannedBytes);
    expect(reuseOff.plannedBytes).toBeGreaterThan(base.plannedBytes);
    const bothOff = planBind(rt.registry, net, {
      shapes,
      env: new Env({ MXNET_EXEC_ENABLE_INPLACE: '0', NNVM_EXEC_MATCH_RANGE: '0' }),
    });
    expect(bothOff.plannedBytes).toBe(bothOff.naiveBytes);
    const forward = planBind(rt.registry, net, { shapes, gradReq: 'null' });
    expect(forward.gradBytes).toBe(0);
    expect(forward.numForward).toBe(forward.numNodes);
  });

  it('fails like simpleBind when shapes cannot be inferred', () => {
    expect(() => planBind(rt.registry, mlp(), { shapes: {} })).toThrow(/cannot infer data/);
  });
});
