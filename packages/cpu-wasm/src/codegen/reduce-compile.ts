/**
 * The cpu-wasm compiler of fused reductions (`OpDef.fusedReduce`, built by graph fusion): a kernel
 * that reduces rows of an elementwise prologue in one pass (reduce-module.ts), so e.g.
 * `sum(square(a - b), axis=-1)` reads a and b once and writes only the row sums. Float32 and
 * float64; every input has the reduction input's shape (the pass fuses only then). Rows are split
 * across the worker pool, whole rows per chunk, when the work is large enough; each row is reduced
 * by the same loop either way, so results do not depend on the thread count.
 */
import { MXNetError, type Shape } from '@mx/base';
import { exprKey, exprParams, type FusedReduceDef, type Kernel, type Op, OpReq, type TBlob } from '@mx/ops';
import type { CpuWasmRuntime } from '../runtime.js';
import { poolOf } from '../threads/index.js';
import { CHUNK_ELEMS, canSplit, PARALLEL_MIN } from './compile.js';
import { KERNEL_IMPORTS } from './js-math.js';
import { buildReduceRowsModule, reduceRowsBlockBytes, writeReduceRowsBlock } from './reduce-module.js';
import { typeExpr } from './typing.js';

type Rows = (...args: number[]) => void;

const KIND = { float32: 'f32', float64: 'f64' } as const;

function shapeStr(s: Shape): string {
  return `(${s.join(',')})`;
}

export function compileFusedReduce(rt: CpuWasmRuntime, op: Op): Kernel {
  const def = op.def.fusedReduce as FusedReduceDef | undefined;
  if (def === undefined) throw new MXNetError('not a fused reduction', { op: op.name });
  if (exprParams(def.prologue).length > 0) {
    throw new MXNetError(`fused reduction ${op.name} has scalar params; cpu-wasm compiles constants only`, {
      op: op.name,
      hint: 'bind with { fusion: false } (or set MXNET_USE_FUSION=0) and report the graph',
    });
  }
  const key = exprKey(def.prologue);
  const reducer = def.reducer === 'mean' ? 'sum' : def.reducer;
  return {
    compute(_attrs, _ctx, inputsAny, req, outputs) {
      const inputs = inputsAny as readonly TBlob<number>[];
      const out = outputs[0] as TBlob<number>;
      const r = req[0] ?? OpReq.write;
      if (r === OpReq.null || out.size === 0) return;
      const first = inputs[0] as TBlob<number>;
      const dtype = first.dtype;
      if (
        (dtype !== 'float32' && dtype !== 'float64') ||
        out.dtype !== dtype ||
        inputs.some((b) => b.dtype !== dtype || b.shape.join() !== first.shape.join())
      ) {
        throw new MXNetError(
          `fused reduction ${op.name} needs float32 or float64 inputs of one shape and dtype, got ${inputs.map((b) => `${b.dtype}${shapeStr(b.shape)}`).join(', ')}`,
          {
            op: op.name,
            shapes: inputs.map((b) => b.shape),
            dtypes: inputs.map((b) => b.dtype),
            device: 'cpu(0)',
            hint: 'bind with { fusion: false } (or set MXNET_USE_FUSION=0) and report the graph',
          },
        );
      }
      const rows = first.shape.slice(0, def.axis).reduce((a, b) => a * b, 1);
      const len = first.shape.slice(def.axis).reduce((a, b) => a * b, 1);
      if (len === 0 && reducer !== 'sum') {
        throw new MXNetError(`${def.reducer} of an empty axis has no identity`, {
          op: op.name,
          shapes: [first.shape],
          hint: 'reduce over a non-empty axis',
        });
      }
      const kind = KIND[dtype];
      const compiled = rt.kernel(
        `fred|${key}|${kind}|${reducer}`,
        () =>
          buildReduceRowsModule(
            {
              tree: typeExpr(
                def.prologue,
                inputs.map(() => kind),
                kind,
              ),
              kind,
              inputs: inputs.length,
              reducer,
              simd: rt.features.simd,
            },
            rt.memoryImport(),
          ),
        KERNEL_IMPORTS,
      );
      const ptrs = [rt.address(out), ...inputs.map((b) => rt.address(b))];
      const mode = r === OpReq.add ? 1 : 0;
      const scale = def.reducer === 'mean' ? 1 / len : 1;
      const per = Math.max(1, Math.ceil(CHUNK_ELEMS / Math.max(1, len)));
      const chunks = Math.ceil(rows / per);
      const pool =
        rows * len >= PARALLEL_MIN && chunks > 1 && canSplit(compiled, 'rrowsChunk') ? poolOf(rt) : null;
      if (pool !== null) {
        const bytes = reduceRowsBlockBytes(inputs.length);
        const blk = rt.memory.allocator.alloc(bytes);
        if (blk !== null) {
          try {
            writeReduceRowsBlock(rt.memory.buffer, blk, { ptrs, rows, len, per, mode, scale });
            pool.parallelFor(compiled, 'rrowsChunk', chunks, [blk]);
          } finally {
            rt.memory.allocator.free(blk, bytes);
          }
          return;
        }
      }
      (compiled.exports.rrows as Rows)(...ptrs, 0, rows, len, mode, scale);
    },
  };
}
