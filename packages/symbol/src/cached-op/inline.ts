/**
 * The inlined path of a CachedOp (MXNet's `inlining_`): a graph of at most `inline_limit` ops,
 * without static_alloc, runs op by op through the runtime's imperative `invoke`, so each op is
 * recorded on the autograd tape on its own (as MXNet records the ops of an inlined graph) and no
 * graph is compiled or planned. Intermediates are disposed as soon as the graph is done with them;
 * the tape keeps what it needs through its own retained views. Graphs with a dynamic-shape node
 * always take this path (their shapes exist only per call).
 */
import { MXNetError } from '@mx/base';
import { type IndexedGraph, isHiddenKey } from '@mx/graph';
import type { NDArray, Runtime } from '@mx/ndarray';

/** Whether a node of `idx` has a data-dependent output shape (`OpDef.dynamicShape` under its params). */
export function hasDynamicShape(idx: IndexedGraph): boolean {
  return idx.nodes.some(({ node }) => {
    const op = node.op;
    if (op === null || op.def.dynamicShape === undefined) return false;
    return op.isDynamicShape(op.parseParams(invokeParams(node.attrs)));
  });
}

/** The string attributes of a node as invoke parameters (hidden keys such as `__lr_mult__` dropped). */
export function invokeParams(attrs: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(attrs)) if (!isHiddenKey(k)) out[k] = v;
  return out;
}

/**
 * Run the forward graph `idx` on `inputs` (one per variable, in `idx.inputNodes` order) op by op.
 * Returns one new array per graph output (an output that is an input, or repeated, is a copy).
 */
export function runInline(
  rt: Runtime,
  idx: IndexedGraph,
  inputs: readonly NDArray[],
  name: string,
): NDArray[] {
  const values = new Array<NDArray | undefined>(idx.numNodeEntries);
  const isInput = new Set<NDArray>(inputs);
  idx.inputNodes.forEach((nid, i) => {
    values[idx.entryId(nid)] = inputs[i];
  });
  // Readers left per entry: an intermediate is disposed after its last reader ran.
  const left = new Int32Array(idx.numNodeEntries);
  for (const n of idx.nodes)
    for (const e of n.inputs) left[idx.entryId(e)] = (left[idx.entryId(e)] as number) + 1;
  for (const e of idx.outputs) left[idx.entryId(e)] = (left[idx.entryId(e)] as number) + 1;
  const created: NDArray[] = [];
  try {
    for (let nid = 0; nid < idx.nodes.length; nid++) {
      const { node, inputs: ins } = idx.nodes[nid] as IndexedGraph['nodes'][number];
      if (node.op === null) continue;
      const args = ins.map((e) => values[idx.entryId(e)] as NDArray);
      const outs = rt.invoke(node.op, args, invokeParams(node.attrs));
      created.push(...outs);
      for (let k = 0; k < node.numOutputs(); k++) {
        const out = outs[k];
        if (out !== undefined && left[idx.entryId(nid, k)] === 0) out.dispose();
        else if (out !== undefined) values[idx.entryId(nid, k)] = out;
        else if ((left[idx.entryId(nid, k)] as number) > 0) {
          throw new MXNetError(
            `node ${node.name} (${node.op.name}): output ${k} is hidden and cannot be inlined`,
            {
              op: name,
              hint: 'create the CachedOp with { staticAlloc: true } or a smaller inlineLimit',
            },
          );
        }
      }
      for (const e of ins) {
        const eid = idx.entryId(e);
        left[eid] = (left[eid] as number) - 1;
        const a = values[eid] as NDArray;
        if (left[eid] === 0 && !isInput.has(a)) a.dispose();
      }
    }
    const given = new Set<NDArray>();
    return idx.outputs.map((e) => {
      const a = values[idx.entryId(e)] as NDArray;
      if (isInput.has(a) || given.has(a)) return a.copy();
      given.add(a);
      return a;
    });
  } catch (e) {
    for (const a of created) a.dispose();
    throw e;
  }
}
