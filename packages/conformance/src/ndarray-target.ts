/**
 * The conformance target for any backend installed in an @mx/ndarray runtime: each case becomes
 * real NDArrays on the chosen device, one `invoke` through the engine (parameter parsing, inference,
 * kernel, all of it), and a read back — so the suite tests what users run, on whatever backend
 * serves the context. Everything a case allocates is disposed before it returns.
 */
import { type Context, cpu } from '@mx/base';
import type { NDArray, Runtime } from '@mx/ndarray';
import type { CaseArray, ConformanceTarget } from './types.js';

export function ndarrayTarget(runtime: Runtime, ctx: Context = cpu(0)): ConformanceTarget {
  const backend = runtime.backendFor(ctx);
  return {
    name: backend.name,
    async invoke(op, inputs, params, options = {}) {
      const created: NDArray[] = [];
      try {
        const arrays = inputs.map((a) => {
          const x = runtime.nd.array(a.data, { shape: a.shape, dtype: a.dtype, ctx });
          created.push(x);
          return x;
        });
        const outs = runtime.invoke(op, arrays, params, { ctx, isTrain: options.isTrain ?? false });
        created.push(...outs);
        const results: CaseArray[] = [];
        const read = options.returnInputs ? [...outs, ...arrays] : outs;
        for (const o of read) results.push({ shape: [...o.shape], dtype: o.dtype, data: await o.data() });
        return results;
      } finally {
        for (const x of created) x.dispose();
      }
    },
    skip(c) {
      const storable = backend.capabilities.storageDTypes;
      for (const a of [...c.inputs, ...(c.outputs ?? [])]) {
        if (!storable.includes(a.dtype)) return `${backend.name} cannot store ${a.dtype}`;
      }
      return undefined;
    },
  };
}
