/**
 * The op object of a fused reduction (`OpDef.fusedReduce`): graph fusion makes one per prologue
 * expression, unregistered like the fused elementwise ops, and backends compile it through their
 * `FusedReduceCompiler`. Its shape rule is MXNet's for a reduction over trailing axes: the kept
 * leading dims, then ones when `keepdims`; a reduction over every axis without keepdims gives (1,).
 */
import type { Shape } from '@mx/base';
import { MXNetError } from '@mx/base';
import { exprKey, type FusedReduceDef } from './expr.js';
import { Op } from './op-def.js';

/** The output shape of `def` over inputs of shape `inShape`. */
export function fusedReduceShape(inShape: Shape, def: FusedReduceDef): number[] {
  const kept = inShape.slice(0, def.axis);
  if (def.keepdims) return [...kept, ...inShape.slice(def.axis).map(() => 1)];
  return kept.length === 0 ? [1] : [...kept];
}

/** A fused reduction over `arity` inputs of one shape and one float dtype. */
export function fusedReduceOp(name: string, def: FusedReduceDef, arity: number): Op {
  return new Op({
    name,
    doc: `fused ${def.reducer} over axes [${def.axis}, ndim) of ${exprKey(def.prologue)}`,
    numInputs: arity,
    listInputNames: Array.from({ length: arity }, (_, i) => `arg${i}`),
    inferShape: (_attrs, inS, outS) => {
      const known = inS.find((s) => s !== undefined);
      if (known === undefined) return false;
      for (const s of inS) {
        if (s !== undefined && s.join() !== known.join()) {
          throw new MXNetError(
            `inputs of ${name} must share one shape, got ${inS.map((x) => `(${x ?? '?'})`).join(', ')}`,
            {
              op: name,
              shapes: inS.filter((x): x is Shape => x !== undefined),
            },
          );
        }
      }
      if (known.length < def.axis) {
        throw new MXNetError(
          `${name} reduces from axis ${def.axis}, but its input has ${known.length} dims`,
          {
            op: name,
            shapes: [known],
          },
        );
      }
      for (let i = 0; i < inS.length; i++) inS[i] = [...known];
      outS[0] = fusedReduceShape(known, def);
      return known.every((d) => d >= 0);
    },
    fusedReduce: def,
  });
}
