/**
 * Deferred compute's bad paths, with MXNet's messages (src/imperative/imperative.cc): writes into
 * arrays inside the scope, autograd recording, plain (unbound) inputs, rebinding a variable, an
 * output without history, and computing what can no longer be computed (a disposed variable, a
 * cleared graph). Each refusal leaves the mode and the arrays as they were.
 */
import { isMXNetError, MXNetError, type StorageArray } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import type { GraphNode } from '@mx/graph';
import { createOpRegistry } from '@mx/ops';
import { afterAll, describe, expect, it } from 'vitest';
import { createRuntime, type NDArray } from '../index.js';

const registry = createOpRegistry();
// An op no backend has a kernel for: recording needs only its inference.
registry.define({
  name: 'test_nokernel',
  inferShape: (_a, i, o) => {
    o[0] = i[0];
    return i[0] !== undefined;
  },
});
const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })], registry });
const { nd, dc, autograd } = rt;
afterAll(() => rt.dispose());

/** The values of a float array as numbers. */
const nums = (v: StorageArray | undefined): number[] => Array.from((v ?? []) as ArrayLike<number>);

const INPLACE =
  'Inplace operations (+=, -=, x[:]=, etc) are not supported when recording in deferred compute mode.';

function thrown(fn: () => unknown): MXNetError {
  try {
    fn();
  } catch (e) {
    if (isMXNetError(e)) return e as MXNetError;
    throw e;
  }
  throw new Error('expected an MXNetError');
}

describe('in-place operations inside the scope', () => {
  it('out=, += methods, set and copyTo(array) are refused with MXNet’s message', () => {
    const x = nd.array([1, 2, 3]);
    const plain = nd.zeros([3]);
    dc.setVariable(x, 'x');
    dc.context(() => {
      const y = x.mul(2);
      const cases: [string, () => unknown][] = [
        ['broadcast_add', () => nd.broadcast_add(x, x, { out: y })],
        ['elemwise_add', () => y.addInplace(x)],
        ['_mul_scalar', () => x.mulInplace(2)],
        ['set', () => y.set(0)],
        ['set', () => y.set([1, 2, 3])],
        ['copyTo', () => x.copyTo(y)],
        ['copyTo', () => x.copyTo(plain)],
        ['broadcast_mul', () => nd.broadcast_mul(x, x, { out: plain })],
      ];
      for (const [op, fn] of cases) {
        const e = thrown(fn);
        expect(e.reason).toBe(INPLACE);
        expect(e.op).toBe(op);
      }
      expect(y.isDeferred).toBe(true);
    });
    expect(dc.isDeferredCompute()).toBe(false);
    // Nothing was written.
    expect(nums(x.dataSync())).toEqual([1, 2, 3]);
    expect(nums(plain.dataSync())).toEqual([0, 0, 0]);
    x.dispose();
    plain.dispose();
  });
});

describe('recording rules', () => {
  it('autograd recording inside the scope is an error', () => {
    const x = nd.array([1, 2]);
    dc.setVariable(x, 'x');
    const e = thrown(() => autograd.record(() => dc.context(() => x.mul(2))));
    expect(e.reason).toBe('Autograd recording is not supported during deferred compute mode.');
    expect(e.op).toBe('_mul_scalar');
    // Paused autograd is fine (Gluon traces under autograd.pause()).
    const y = autograd.record(() => autograd.pause(() => dc.context(() => x.mul(2))));
    expect(nums(y.dataSync())).toEqual([2, 4]);
    x.dispose();
    y.dispose();
  });

  it('an input that is neither a variable nor a recorded output is an error', () => {
    const bound = nd.array([1, 2]);
    const plain = nd.array([3, 4]);
    dc.setVariable(bound, 'bound');
    const e = thrown(() => dc.context(() => bound.add(plain)));
    expect(e.reason).toBe(
      'All inputs to deferred compute recording must be associated with a symbolic variable or be the output of a deferred compute operator.',
    );
    expect(e.op).toBe('broadcast_add');
    expect(e.hint).toContain('input 1');
    // A plain view of a bound array records too: views are ops inside the scope.
    expect(thrown(() => dc.context(() => plain.reshape([2, 1]))).op).toBe('Reshape');
    bound.dispose();
    plain.dispose();
  });

  it('bad op calls fail as the eager call does, before anything is recorded', () => {
    const x = nd.array([1, 2, 3]);
    dc.setVariable(x, 'x');
    const e = thrown(() => dc.context(() => nd.dot(x, nd.ones([4, 2]))));
    expect(e.op).toBe('dot');
    expect(e.shapes).toEqual([[3], [4, 2]]);
    x.dispose();
  });

  it('rebinding an array to another variable needs detach(), as in MXNet', () => {
    const x = nd.array([1, 2]);
    dc.setVariable(x, 'a');
    const e = thrown(() => dc.setVariable(x, 'b'));
    expect(e.reason).toBe(
      'array 0 is already associated with a different variable. You can call array.detach() to obtain a copy without the variable',
    );
    const d = x.detach();
    dc.setVariable(d, 'b');
    const y = dc.context(() => d.mul(2));
    expect(dc.getSymbol(y).indexed.nodes[0]?.node.name).toBe('b');
    // A recorded output is not a variable either.
    expect(thrown(() => dc.setVariable(y, 'c')).reason).toContain('already associated');
    expect(thrown(() => dc.setVariable([x, d], ['p'])).reason).toContain('1 variable(s)');
    // A graph node that is not a variable.
    const opNode = dc.getSymbol(y).outputs[0]?.node as GraphNode;
    const fresh = nd.array([0, 0]);
    expect(thrown(() => dc.setVariable(fresh, opNode)).reason).toMatch(
      /^setVariable expects variables as input/,
    );
    expect(fresh.dcEntry).toBeUndefined();
    fresh.dispose();
    for (const t of [x, d, y]) t.dispose();
  });

  it('getSymbol of an array without history names MXNet’s rule', () => {
    const x = nd.array([1]);
    const e = thrown(() => dc.getSymbol(x));
    expect(e.reason).toBe(
      'output_arrays for GetDeferredComputeSymbol must have a deferred compute history associated with them.',
    );
    x.dispose();
  });
});

describe('what can no longer be computed', () => {
  it('a variable whose array was disposed: the read fails, the variable is named', () => {
    const x = nd.array([1, 2]);
    dc.setVariable(x, 'weights');
    const y = dc.context(() => x.mul(2));
    x.dispose();
    expect(thrown(() => y.dataSync()).reason).toContain("variable 'weights'");
    expect(y.isDeferred).toBe(true);
    y.dispose();
  });

  it('a cleared graph: the read fails and names the node', () => {
    const x = nd.array([1, 2]);
    dc.setVariable(x, 'x');
    const y = dc.context(() => x.mul(2).add(1));
    dc.clear(y);
    const e = thrown(() => y.dataSync());
    expect(e.reason).toMatch(/^node node_\d+ \(_plus_scalar\) was cleared/);
    // x is unbound again: it can be bound to a new variable.
    expect(x.dcEntry).toBeUndefined();
    dc.setVariable(x, 'x2');
    y.dispose();
    x.dispose();
  });

  it('a failure when computing names the deferred node (an op without a kernel here)', () => {
    const x = nd.array([1, 2]);
    dc.setVariable(x, 'x');
    const y = dc.context(() => nd.test_nokernel?.(x) as NDArray); // recorded: no kernel is looked up
    expect(y.shape).toEqual([2]);
    const e = thrown(() => y.dataSync());
    expect(e.reason).toMatch(
      /^computing deferred node node_\d+: operator test_nokernel has no kernel on backend /,
    );
    expect(e.op).toBe('test_nokernel');
    expect(y.isDeferred).toBe(true);
    x.dispose();
    y.dispose();
  });

  it('a disposed deferred array is refused, not computed', () => {
    const x = nd.array([1]);
    dc.setVariable(x, 'x');
    const y = dc.context(() => x.mul(2));
    y.dispose();
    expect(thrown(() => dc.compute(y)).reason).toContain('disposed');
    expect(() => y.dataSync()).toThrow(MXNetError);
    x.dispose();
  });
});
