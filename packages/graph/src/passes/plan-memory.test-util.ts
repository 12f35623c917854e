/**
 * Test helpers for the memory planner, kept apart from it on purpose: `planViolations` re-derives
 * what a correct plan must satisfy (lifetimes from the graph, in-place legality from the op
 * declarations) without sharing any code with `planMemory`, so a planner bug cannot hide behind
 * the same bug in its checker. `inferForward` gives shapes and dtypes by running each op's own
 * inference in node order (the inference passes proper live elsewhere).
 */
import { DType, type DTypeName, type Shape } from '@mx/base';
import type { IndexedGraph } from '../indexed.js';
import { DYNAMIC_STORAGE, EXTERNAL_STORAGE, type MemoryPlan, NULL_STORAGE } from './plan-memory.js';

/** Shapes and dtypes of every entry, from variable shapes by name (forward inference only). */
export function inferForward(
  idx: IndexedGraph,
  varShapes: Readonly<Record<string, Shape>>,
  varDtypes: Readonly<Record<string, DTypeName>> = {},
): { shapes: (Shape | undefined)[]; dtypes: (DTypeName | undefined)[] } {
  const shapes: (Shape | undefined)[] = new Array(idx.numNodeEntries).fill(undefined);
  const dtypes: (DTypeName | undefined)[] = new Array(idx.numNodeEntries).fill(undefined);
  idx.nodes.forEach((inode, nid) => {
    const node = inode.node;
    if (node.op === null) {
      shapes[idx.entryId(nid, 0)] = varShapes[node.name];
      dtypes[idx.entryId(nid, 0)] = varDtypes[node.name] ?? 'float32';
      return;
    }
    const inS = inode.inputs.map((e) => {
      const s = shapes[idx.entryId(e)];
      return s === undefined ? undefined : [...s];
    });
    const outS: (Shape | undefined)[] = new Array(node.numOutputs()).fill(undefined);
    node.op.inferShape(node.parsed, inS, outS);
    const inT = inode.inputs.map((e) => dtypes[idx.entryId(e)]);
    const outT: (DTypeName | undefined)[] = new Array(node.numOutputs()).fill(undefined);
    node.op.inferType(node.parsed, inT, outT);
    outS.forEach((s, o) => {
      shapes[idx.entryId(nid, o)] = s;
      dtypes[idx.entryId(nid, o)] = outT[o];
    });
  });
  return { shapes, dtypes };
}

function bytesOf(shape: Shape | undefined, dtype: DTypeName | undefined): number | undefined {
  if (shape === undefined || dtype === undefined || shape.some((d) => d < 0)) return undefined;
  return shape.reduce((a, d) => a * d, 1) * DType[dtype].bytes;
}

/**
 * Everything wrong with `plan` for this graph (empty when it is sound):
 * - storage kinds: variables and `external` entries external, `unused` ones null, unknown sizes
 *   dynamic, everything else a buffer;
 * - every buffer at least as large as each entry on it; plannedBytes the sum of the buffers and
 *   no more than naiveBytes (the sum over entries with a buffer);
 * - in-place claims name a declared (input, output) pair of the op and the input's buffer;
 * - lifetimes: an entry lives from its producer to its last reader (ignored inputs are not reads;
 *   graph outputs live to the end). Entries that hold one value (an identity pair of equal dtypes)
 *   form one group. Two groups on one buffer must not be live together, except that a group may
 *   start at the node where the previous one is read last when that node writes it in place.
 */
export function planViolations(
  idx: IndexedGraph,
  plan: MemoryPlan,
  shapes: readonly (Shape | undefined)[],
  dtypes: readonly (DTypeName | undefined)[],
  external: ReadonlySet<number> = new Set(),
  unused: ReadonlySet<number> = new Set(),
): string[] {
  const out: string[] = [];
  const n = idx.numNodeEntries;
  const producer = new Array<number>(n);
  const outIndex = new Array<number>(n);
  idx.nodes.forEach((inode, nid) => {
    for (let o = 0; o < inode.node.numOutputs(); o++) {
      producer[idx.entryId(nid, o)] = nid;
      outIndex[idx.entryId(nid, o)] = o;
    }
  });
  const lastRead = new Array<number>(n).fill(-1);
  idx.nodes.forEach((inode, nid) => {
    const op = inode.node.op;
    if (op === null) return;
    const ignored = op.ignoreInputs(inode.node.parsed);
    inode.inputs.forEach((e, i) => {
      if (ignored.includes(i)) return;
      const eid = idx.entryId(e);
      lastRead[eid] = Math.max(lastRead[eid] as number, nid);
    });
  });
  for (const e of idx.outputs) lastRead[idx.entryId(e)] = Number.POSITIVE_INFINITY;

  let naive = 0;
  for (let eid = 0; eid < n; eid++) {
    const sid = plan.storageId[eid] as number;
    const isVar = idx.nodes[producer[eid] as number]?.node.op === null;
    const bytes = bytesOf(shapes[eid], dtypes[eid]);
    const want =
      isVar || external.has(eid)
        ? EXTERNAL_STORAGE
        : unused.has(eid)
          ? NULL_STORAGE
          : bytes === undefined
            ? DYNAMIC_STORAGE
            : 'buffer';
    if (want === 'buffer' ? sid < 0 : sid !== want)
      out.push(`entry ${eid}: storage ${sid}, expected ${want}`);
    if (sid >= 0) {
      naive += bytes as number;
      if ((plan.storageBytes[sid] ?? -1) < (bytes as number)) {
        out.push(`entry ${eid} (${bytes} bytes) on storage ${sid} of ${plan.storageBytes[sid]} bytes`);
      }
      if (lastRead[eid] === -1 && plan.inplaceIndex[eid] !== -2)
        out.push(`entry ${eid} is never read, not -2`);
    }
  }
  const total = plan.storageBytes.reduce((a, b) => a + b, 0);
  if (plan.plannedBytes !== total) out.push(`plannedBytes ${plan.plannedBytes} != sum ${total}`);
  if (plan.naiveBytes !== naive) out.push(`naiveBytes ${plan.naiveBytes} != ${naive}`);
  if (plan.plannedBytes > plan.naiveBytes)
    out.push(`planned ${plan.plannedBytes} > naive ${plan.naiveBytes}`);

  // Value groups (union-find over identity in-place pairs) and in-place legality.
  const parent = Array.from({ length: n }, (_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i] as number] as number;
    return i;
  };
  const inputOf = (eid: number, i: number): number | undefined => {
    const e = idx.nodes[producer[eid] as number]?.inputs[i];
    return e === undefined ? undefined : idx.entryId(e);
  };
  for (let eid = 0; eid < n; eid++) {
    const i = plan.inplaceIndex[eid] as number;
    if (i < 0) continue;
    const node = idx.nodes[producer[eid] as number]?.node;
    const op = node?.op;
    const src = inputOf(eid, i);
    if (!node || !op || src === undefined) {
      out.push(`entry ${eid}: in-place index ${i} names no input`);
      continue;
    }
    const k = op.inplaceOption(node.parsed).findIndex(([a, b]) => a === i && b === outIndex[eid]);
    if (k < 0) out.push(`entry ${eid}: ${op.name} declares no in-place pair (${i}, ${outIndex[eid]})`);
    if (plan.storageId[src] !== plan.storageId[eid])
      out.push(`entry ${eid}: in place but not on input ${i}'s storage`);
    if (k >= 0 && op.inplaceIdentity(node.parsed)[k] === true && dtypes[src] === dtypes[eid]) {
      parent[find(eid)] = find(src);
    }
  }

  // Lifetimes of the groups on each buffer.
  const groups = new Map<number, Map<number, { start: number; end: number; members: number[] }>>();
  for (let eid = 0; eid < n; eid++) {
    const sid = plan.storageId[eid] as number;
    if (sid < 0) continue;
    let bySid = groups.get(sid);
    if (!bySid) {
      bySid = new Map();
      groups.set(sid, bySid);
    }
    const root = find(eid);
    const p = producer[eid] as number;
    const g = bySid.get(root) ?? { start: p, end: p, members: [] };
    g.start = Math.min(g.start, p);
    g.end = Math.max(g.end, p, lastRead[eid] as number);
    g.members.push(eid);
    bySid.set(root, g);
  }
  for (const [sid, bySid] of groups) {
    const list = [...bySid.values()].sort((a, b) => a.start - b.start);
    for (let a = 0; a < list.length; a++) {
      for (let b = a + 1; b < list.length; b++) {
        const x = list[a] as (typeof list)[number];
        const y = list[b] as (typeof list)[number];
        if (x.end < y.start) continue;
        const handoff =
          x.end === y.start &&
          y.members.some((m) => {
            const i = plan.inplaceIndex[m] as number;
            const src = i >= 0 && producer[m] === y.start ? inputOf(m, i) : undefined;
            return src !== undefined && x.members.includes(src);
          });
        if (!handoff) {
          out.push(
            `storage ${sid}: entries [${x.members}] live in nodes ${x.start}..${x.end} overlap entries [${y.members}] from node ${y.start}`,
          );
        }
      }
    }
  }
  return out;
}
