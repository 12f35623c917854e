/**
 * Which slots of a backward node mirror which entries of its forward node — what MXNet's
 * inference learns by calling the forward op's FGradient on placeholder output gradients
 * (`infer_graph_attr_pass.cc`, the `TIsBackward` branch). Our gradients are data (`GradientDef`
 * with a `build` over an abstract `GradBuilder`), so the same trick works: run `build` with a
 * builder whose values are tokens, and read off which output of which op call each input gradient
 * is, and which of that call's inputs are output gradients.
 *
 * Only the inference fallback uses this (backward ops normally infer themselves), so any builder
 * this tracer cannot follow simply yields no correspondence instead of an error.
 */
import type { GradBuilder, GradientSpec } from '@mx/ops';
import type { GraphNode } from '../node.js';

/** Slot correspondence between a backward node and its forward node. */
export interface BackwardCorrespondence {
  /** Backward output index → forward input index (the input gradient it computes). */
  readonly outputs: ReadonlyMap<number, number>;
  /** Backward input index → forward output index (the output gradient it reads). */
  readonly inputs: ReadonlyMap<number, number>;
}

type Token =
  | { readonly k: 'input' | 'output' | 'ograd'; readonly i: number }
  | { readonly k: 'call'; readonly call: Call; readonly i: number };

interface Call {
  readonly name: string;
  readonly inputs: readonly Token[];
}

/** Outputs handed back per traced op call; more than any op's visible outputs. */
const MAX_TRACED_OUTPUTS = 16;

/**
 * The correspondence of backward node `bwd` to forward node `fwd`, or undefined when the forward
 * op has no traceable gradient or none of its input gradients comes from `bwd`'s op.
 */
export function backwardCorrespondence(fwd: GraphNode, bwd: GraphNode): BackwardCorrespondence | undefined {
  const fop = fwd.op;
  const bop = bwd.op;
  if (fop === null || bop === null) return undefined;
  const spec = fop.def.gradient as GradientSpec<unknown> | undefined;
  if (spec === undefined || spec === 'zero') return undefined;
  const names = new Set([bop.name, ...bop.aliases]);
  const builder: GradBuilder<Token> = {
    input: (i) => ({ k: 'input', i }),
    output: (i) => ({ k: 'output', i }),
    ograd: (i) => ({ k: 'ograd', i }),
    hasOgrad: () => true,
    op: (name, inputs) => {
      const call: Call = { name, inputs: [...inputs] };
      return Array.from({ length: MAX_TRACED_OUTPUTS }, (_, i) => ({ k: 'call', call, i }) as Token);
    },
    op1: (name, inputs) => builder.op(name, inputs)[0] as Token,
    isTrain: true,
  };
  let grads: readonly (Token | null)[];
  try {
    grads = spec.build(builder, fwd.parsed);
  } catch {
    return undefined;
  }
  const outputs = new Map<number, number>();
  let call: Call | undefined;
  for (let i = 0; i < grads.length; i++) {
    const g = grads[i];
    if (g?.k !== 'call' || !names.has(g.call.name)) continue;
    // MXNet requires every matching input gradient to come from one backward node.
    if (call !== undefined && call !== g.call) return undefined;
    call = g.call;
    outputs.set(g.i, i);
  }
  if (call === undefined) return undefined;
  const inputs = new Map<number, number>();
  call.inputs.forEach((t, k) => {
    if (t.k === 'ograd') inputs.set(k, t.i);
  });
  return { outputs, inputs };
}
