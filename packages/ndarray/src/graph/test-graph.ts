/**
 * Test helpers for the graph runner, independent of @mx/graph's passes (so the runner is tested on
 * its own): a forward-only shape/dtype inference through each op's own inference, and memory plans
 * written by hand — one buffer per entry, or explicit storage ids to exercise sharing. Not exported.
 */
import { DType, type DTypeName, type Shape, shapeSize } from '@mx/base';
import { EXTERNAL_STORAGE, type IndexedGraph, type MemoryPlan } from '@mx/graph';

/** Shapes and dtypes of every entry from the variables' (forward sweep, each op's inference). */
export function inferForward(
  idx: IndexedGraph,
  vars: Readonly<Record<string, readonly [Shape, DTypeName]>>,
): { shapes: Shape[]; dtypes: DTypeName[] } {
  const shapes: Shape[] = new Array(idx.numNodeEntries);
  const dtypes: DTypeName[] = new Array(idx.numNodeEntries);
  idx.nodes.forEach(({ node, inputs }, nid) => {
    const first = idx.rowPtr[nid] as number;
    if (node.op === null) {
      const v = vars[node.name];
      if (v === undefined) throw new Error(`no shape for ${node.name}`);
      shapes[first] = v[0];
      dtypes[first] = v[1];
      return;
    }
    const inS: (Shape | undefined)[] = inputs.map((e) => shapes[idx.entryId(e)]);
    const inT: (DTypeName | undefined)[] = inputs.map((e) => dtypes[idx.entryId(e)]);
    const n = node.numOutputs();
    const outS: (Shape | undefined)[] = new Array(n).fill(undefined);
    const outT: (DTypeName | undefined)[] = new Array(n).fill(undefined);
    if (!node.op.inferShape(node.parsed, inS, outS) || !node.op.inferType(node.parsed, inT, outT)) {
      throw new Error(`cannot infer ${node.name}`);
    }
    for (let i = 0; i < n; i++) {
      shapes[first + i] = outS[i] as Shape;
      dtypes[first + i] = outT[i] as DTypeName;
    }
  });
  return { shapes, dtypes };
}

/**
 * A plan from explicit storage ids: `ids[eid]` (undefined: a fresh id of its own; variables are
 * external). Bytes per id are the largest entry's.
 */
export function planFrom(
  idx: IndexedGraph,
  shapes: readonly Shape[],
  dtypes: readonly DTypeName[],
  ids: Readonly<Record<number, number>> = {},
  external: ReadonlySet<number> = new Set(),
): MemoryPlan {
  const n = idx.numNodeEntries;
  const storageId = new Int32Array(n);
  const inplaceIndex = new Int32Array(n).fill(-1);
  const bytes: number[] = [];
  let next = Math.max(-1, ...Object.values(ids)) + 1;
  let naive = 0;
  idx.nodes.forEach(({ node }, nid) => {
    for (let eid = idx.rowPtr[nid] as number; eid < (idx.rowPtr[nid + 1] as number); eid++) {
      if (node.op === null || external.has(eid)) {
        storageId[eid] = EXTERNAL_STORAGE;
        continue;
      }
      const sid = ids[eid] ?? next++;
      storageId[eid] = sid;
      const b = shapeSize(shapes[eid] as Shape) * DType[dtypes[eid] as DTypeName].bytes;
      naive += b;
      bytes[sid] = Math.max(bytes[sid] ?? 0, b);
    }
  });
  const refCount = new Int32Array(n);
  const use = (eid: number) => {
    refCount[eid] = (refCount[eid] as number) + 1;
  };
  for (const nd of idx.nodes) for (const e of nd.inputs) use(idx.entryId(e));
  for (const e of idx.outputs) use(idx.entryId(e));
  const storageBytes = Array.from({ length: bytes.length }, (_, i) => bytes[i] ?? 0);
  return {
    storageId,
    inplaceIndex,
    storageBytes,
    plannedBytes: storageBytes.reduce((a, b) => a + b, 0),
    naiveBytes: naive,
    numDynamic: 0,
    refCount,
  };
}
