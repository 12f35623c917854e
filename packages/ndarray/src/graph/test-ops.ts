/**
 * Test ops for the graph runner's tests, with kernels on the host-test backend (gpu contexts) that
 * record what they are given: an affine map (sync, and async completing later or inline), a
 * two-output split, an op that mutates its state input (FMutateInputs), one that fails on negative
 * input and one limited to float32. Not exported from the package.
 */
import type { Shape } from '@mx/base';
import { createOpRegistry, type OpRegistry, type OpReqType, P, type TBlob } from '@mx/ops';

/** A registry with the test ops, and the reqs each test kernel saw on its last call (by op name). */
export function testOps(): { registry: OpRegistry; seenReq: Map<string, OpReqType[]> } {
  const registry = createOpRegistry();
  const seenReq = new Map<string, OpReqType[]>();
  const f32 = (b: TBlob): Float32Array => new Float32Array(b.ptr as ArrayBuffer, b.byteOffset, b.size);
  const same = (_a: unknown, i: (Shape | undefined)[], o: (Shape | undefined)[]) => {
    for (let k = 0; k < o.length; k++) o[k] ??= i[0];
    return i[0] !== undefined;
  };
  const AFFINE = { k: P.float({ default: 1 }), b: P.float({ default: 0 }) };
  registry.define({ name: 'test_affine', params: AFFINE, inferShape: same });
  registry.registerKernel('test_affine', 'host-test', {
    compute: (a, _c, ins, req, outs) => {
      const { k, b } = a as { k: number; b: number };
      seenReq.set('test_affine', [...req]);
      const x = f32(ins[0] as TBlob);
      const y = f32(outs[0] as TBlob);
      for (let i = 0; i < x.length; i++)
        y[i] = (req[0] === 3 ? (y[i] as number) : 0) + k * (x[i] as number) + b;
    },
  });
  // Completes later (a macrotask), or inline when `inline` is set: both paths of an async segment.
  registry.define({
    name: 'test_async_affine',
    params: { ...AFFINE, inline: P.bool({ default: false }) },
    inferShape: same,
  });
  registry.registerKernel('test_async_affine', 'host-test', {
    execType: 'async',
    compute: (a, c, ins, _req, outs) => {
      const { k, b, inline } = a as { k: number; b: number; inline: boolean };
      const work = () => {
        const x = f32(ins[0] as TBlob);
        const y = f32(outs[0] as TBlob);
        for (let i = 0; i < x.length; i++) y[i] = k * (x[i] as number) + b;
        c.onComplete?.();
      };
      if (inline) work();
      else setTimeout(work, 1);
    },
  });
  registry.define({ name: 'test_split2', numOutputs: 2, inferShape: same });
  registry.registerKernel('test_split2', 'host-test', {
    compute: (_a, _c, ins, req, outs) => {
      seenReq.set('test_split2', [...req]);
      const x = f32(ins[0] as TBlob);
      if (req[0] !== 0) f32(outs[0] as TBlob).set(x);
      if (req[1] !== 0) f32(outs[1] as TBlob).set(x.map((v) => -v));
    },
  });
  // Adds its data into its state input (FMutateInputs [1]) and outputs the new state.
  registry.define({ name: 'test_accumulate', numInputs: 2, mutateInputs: () => [1], inferShape: same });
  registry.registerKernel('test_accumulate', 'host-test', {
    compute: (_a, _c, ins, _req, outs) => {
      const x = f32(ins[0] as TBlob);
      const s = f32(ins[1] as TBlob);
      for (let i = 0; i < x.length; i++) s[i] = (s[i] as number) + (x[i] as number);
      f32(outs[0] as TBlob).set(s);
    },
  });
  registry.define({ name: 'test_fail_negative', inferShape: same });
  registry.registerKernel('test_fail_negative', 'host-test', {
    compute: (_a, _c, ins, _req, outs) => {
      const x = f32(ins[0] as TBlob);
      if (x.some((v) => v < 0)) throw new Error('negative input');
      f32(outs[0] as TBlob).set(x);
    },
  });
  registry.define({ name: 'test_float_only', inferShape: same });
  registry.registerKernel('test_float_only', 'host-test', { dtypes: ['float32'], compute: () => {} });
  return { registry, seenReq };
}
