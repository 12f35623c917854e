/**
 * PlanMemory tests. Hand-built graphs pin MXNet's individual rules (best fit within the match
 * range, largest outputs first, when in-place is allowed); property tests over random DAGs check
 * every plan with `planViolations`, a checker written apart from the planner; and a relu chain and
 * an MLP's forward+backward graph check the savings that motivate the pass.
 */
import type { DTypeName, Shape } from '@mx/base';
import { createOpRegistry } from '@mx/ops';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IndexedGraph } from '../indexed.js';
import { entry, GraphNode, type NodeEntry } from '../node.js';
import { gradient } from './gradient.js';
import {
  DYNAMIC_STORAGE,
  EXTERNAL_STORAGE,
  INPLACE_NEVER_READ,
  NULL_STORAGE,
  type PlanMemoryOptions,
  planMemory,
} from './plan-memory.js';
import { inferForward, planViolations } from './plan-memory.test-util.js';

const reg = createOpRegistry();
const v = (name: string): NodeEntry => entry(GraphNode.variable(name));
const node = (opName: string, name: string, inputs: NodeEntry[], params?: Record<string, unknown>) =>
  GraphNode.fromParams(reg.get(opName), name, params, inputs);
const op1 = (opName: string, name: string, inputs: NodeEntry[], params?: Record<string, unknown>) =>
  entry(node(opName, name, inputs, params));

/** Plan with shapes given per entry (`[n]` float32 for an op output given `n` elements). */
function planSized(
  outputs: NodeEntry[],
  elems: Map<NodeEntry | GraphNode, number | number[]>,
  extra: Partial<PlanMemoryOptions> = {},
) {
  const idx = new IndexedGraph(outputs);
  const shapes: (Shape | undefined)[] = new Array(idx.numNodeEntries).fill([1]);
  const dtypes: DTypeName[] = new Array(idx.numNodeEntries).fill('float32');
  for (const [k, n] of elems) {
    const list = typeof n === 'number' ? [n] : n;
    const nd = k instanceof GraphNode ? k : k.node;
    list.forEach((m, o) => {
      shapes[idx.entryId(idx.nodeId(nd), k instanceof GraphNode ? o : (k as NodeEntry).index)] = [m];
    });
  }
  const plan = planMemory(idx, { shapes, dtypes, ...extra });
  const sid = (e: NodeEntry) => plan.storageId[idx.entryOf(e)] as number;
  const inplace = (e: NodeEntry) => plan.inplaceIndex[idx.entryOf(e)] as number;
  expect(planViolations(idx, plan, shapes, dtypes, extra.external, extra.unused)).toEqual([]);
  return { idx, plan, sid, inplace };
}

describe('planMemory: the free pool (MXNet GraphAllocator.Request)', () => {
  // a, b are read by c; after c both return to the pool; d, e request from it.
  function pool(dElems: number, eElems?: number) {
    const x = v('x');
    const a = op1('exp', 'a', [x]);
    const b = op1('exp', 'b', [x]);
    const c = op1('elemwise_add', 'c', [a, b]);
    const d = op1('exp', 'd', [c]);
    const outs = eElems === undefined ? [d] : [d, op1('exp', 'e', [c])];
    const sizes = new Map<NodeEntry, number>([
      [a, 100],
      [b, 25],
      [c, 1],
      [d, dElems],
    ]);
    if (eElems !== undefined) sizes.set(outs[1] as NodeEntry, eElems);
    const r = planSized(outs, sizes, { inplace: false });
    return { ...r, a, b, c, d, e: outs[1] as NodeEntry };
  }

  it('takes the smallest free block at least as large', () => {
    const p = pool(22, 50); // 88 bytes → b's 100-byte block; then 200 bytes → a's 400-byte block
    expect(p.sid(p.d)).toBe(p.sid(p.b));
    expect(p.sid(p.e)).toBe(p.sid(p.a));
    expect(p.plan.storageBytes[p.sid(p.a)]).toBe(400);
  });

  it('else takes the largest smaller block within range, which grows', () => {
    const p = pool(110); // 440 bytes: nothing >= 440; 400 and 100 are in [27, 440) → 400 grows
    expect(p.sid(p.d)).toBe(p.sid(p.a));
    expect(p.plan.storageBytes[p.sid(p.a)]).toBe(440);
  });

  it('allocates anew outside [size/16, size*16]', () => {
    const small = pool(1, 1); // 4 bytes: 100 and 400 > 64
    expect(small.plan.storageBytes).toHaveLength(5); // a, b, c, d, e
    const big = pool(2000); // 8000 bytes: 400 < 500
    expect(big.sid(big.d)).not.toBe(big.sid(big.a));
    expect(big.sid(big.d)).not.toBe(big.sid(big.b));
    // A wider match range admits them.
    const x = v('x');
    const a = op1('exp', 'a', [x]);
    const d = op1('exp', 'd', [op1('exp', 'c', [a])]);
    const r = planSized(
      [d],
      new Map([
        [a, 100],
        [d, 1],
      ]),
      { inplace: false, matchRange: 128 },
    );
    expect(r.sid(d)).toBe(r.sid(a));
  });

  it('places the largest outputs of a node first', () => {
    const x = v('x');
    const a = op1('exp', 'a', [x]);
    const c = op1('exp', 'c', [a]);
    const split = node('SliceChannel', 's', [c], { num_outputs: 2, axis: 0 });
    const o0 = entry(split, 0);
    const o1 = entry(split, 1);
    // Pool holds a's 400-byte block when s runs; its 400-byte output takes it, the 100-byte one
    // gets a new block (smallest-first would have given the 400-byte block to the small output).
    const r = planSized(
      [o0, o1],
      new Map<NodeEntry | GraphNode, number | number[]>([
        [a, 100],
        [c, 1],
        [split, [25, 100]],
      ]),
      { inplace: false },
    );
    expect(r.sid(o1)).toBe(r.sid(a));
    expect(r.sid(o0)).not.toBe(r.sid(a));
  });

  it('reuse: false gives every entry its own buffer', () => {
    const p = planSized([op1('exp', 'd', [op1('exp', 'c', [op1('exp', 'a', [v('x')])])])], new Map(), {
      inplace: false,
      reuse: false,
    });
    expect(p.plan.plannedBytes).toBe(p.plan.naiveBytes);
    expect(p.plan.storageBytes).toHaveLength(3);
  });
});

describe('planMemory: in-place (FInplaceOption / FInplaceIdentity)', () => {
  it('writes in place when the node reads its input last, never onto variables or live inputs', () => {
    const x = v('x');
    const a = op1('relu', 'a', [x]);
    const b = op1('relu', 'b', [a]);
    const c = op1('elemwise_add', 'c', [a, b]); // a read again here: b cannot take a's buffer
    const { sid, inplace } = planSized([c], new Map());
    expect(inplace(a)).toBe(-1); // x is external
    expect(inplace(b)).toBe(-1);
    expect(sid(b)).not.toBe(sid(a));
    expect(inplace(c)).toBe(0); // c is a's last reader (and b's): it takes input 0
    expect(sid(c)).toBe(sid(a));
  });

  it('does not write over a graph output, an output nobody reads, or a differently sized entry', () => {
    const x = v('x');
    const a = op1('relu', 'a', [x]);
    const b = op1('relu', 'b', [a]);
    const r1 = planSized([a, b], new Map());
    expect(r1.inplace(b)).toBe(-1);
    const unread = op1('relu', 'u', [b]);
    const r2 = planSized([unread, op1('exp', 'e', [b])], new Map([[unread, 1]]));
    expect(r2.inplace(unread)).toBe(-1);
    const y = op1('relu', 'y', [op1('relu', 'z', [x])]);
    const r3 = planSized([y], new Map([[y, 7]]));
    expect(r3.inplace(y)).toBe(-1);
  });

  it('shares an identity input while others still read it (equal dtypes only)', () => {
    const x = v('x');
    const a = op1('relu', 'a', [x]);
    const copy = op1('_copy', 'copy', [a]);
    const e = op1('exp', 'e', [a]);
    const r = planSized([copy, e], new Map());
    expect(r.inplace(copy)).toBe(0);
    expect(r.sid(copy)).toBe(r.sid(a));
    expect(r.sid(e)).not.toBe(r.sid(a));
    // Cast declares identity, but int32 bits must not land on a float32 array still read.
    const idx = new IndexedGraph([op1('Cast', 'cast', [a], { dtype: 'int32' }), e]);
    const cast = idx.outputs[0] as (typeof idx.outputs)[number];
    const shapes = new Array(idx.numNodeEntries).fill([4]);
    const dtypes: DTypeName[] = new Array(idx.numNodeEntries).fill('float32');
    dtypes[idx.entryId(cast)] = 'int32';
    const plan = planMemory(idx, { shapes, dtypes });
    expect(plan.inplaceIndex[idx.entryId(cast)]).toBe(-1);
    expect(planViolations(idx, plan, shapes, dtypes)).toEqual([]);
  });

  it('inplace: false turns it off', () => {
    const x = v('x');
    const y = op1('relu', 'b', [op1('relu', 'a', [x])]);
    const r = planSized([y], new Map(), { inplace: false });
    expect(r.inplace(y)).toBe(-1);
  });
});

describe('planMemory: entry kinds', () => {
  it('marks variables and external entries external, unknown shapes dynamic, unused entries null', () => {
    const x = v('x');
    const a = op1('exp', 'a', [x]);
    const b = op1('relu', 'b', [a]);
    const split = node('SliceChannel', 's', [b], { num_outputs: 2, axis: 0 });
    const c = op1('relu', 'c', [entry(split, 0)]);
    const idx = new IndexedGraph([c]);
    const shapes: (Shape | undefined)[] = new Array(idx.numNodeEntries).fill([2]);
    const dtypes: DTypeName[] = new Array(idx.numNodeEntries).fill('float32');
    const eid = (e: NodeEntry) => idx.entryOf(e);
    shapes[eid(c)] = [2, -1];
    const external = new Set([eid(a)]);
    const unused = new Set([eid(entry(split, 1))]);
    const plan = planMemory(idx, { shapes, dtypes, external, unused });
    expect(plan.storageId[eid(x)]).toBe(EXTERNAL_STORAGE);
    expect(plan.storageId[eid(a)]).toBe(EXTERNAL_STORAGE);
    expect(plan.inplaceIndex[eid(b)]).toBe(-1); // a's buffer is not ours to write
    expect(plan.storageId[eid(entry(split, 1))]).toBe(NULL_STORAGE);
    expect(plan.inplaceIndex[eid(entry(split, 1))]).toBe(INPLACE_NEVER_READ);
    expect(plan.storageId[eid(c)]).toBe(DYNAMIC_STORAGE);
    expect(plan.numDynamic).toBe(1);
    expect(planViolations(idx, plan, shapes, dtypes, external, unused)).toEqual([]);
  });

  it('reports outputs nobody reads with -2 (req null) and counts ignored inputs as no read', () => {
    const x = v('x');
    const a = op1('exp', 'a', [x]);
    const split = node('SliceChannel', 's', [a], { num_outputs: 2, axis: 0 });
    const z = op1('zeros_like', 'z', [entry(split, 1)]); // reads only the shape of s[1]
    const y = op1('elemwise_add', 'y', [entry(split, 0), z]);
    const { idx, plan } = planSized([y], new Map());
    expect(plan.refCount[idx.entryOf(entry(split, 1))]).toBe(0);
    expect(plan.inplaceIndex[idx.entryOf(entry(split, 1))]).toBe(INPLACE_NEVER_READ);
    expect(plan.refCount[idx.entryOf(entry(split, 0))]).toBe(1);
  });

  it('rejects bad options', () => {
    const x = v('x');
    const a = op1('exp', 'a', [x]);
    const y = op1('exp', 'y', [a]);
    const idx = new IndexedGraph([y]);
    const shapes = [[2], [2], [2]];
    const dtypes: DTypeName[] = ['float32', 'float32', 'float32'];
    expect(() => planMemory(idx, { shapes: [[2]], dtypes })).toThrow(/1 shapes and 3 dtypes for 3 entries/);
    expect(() => planMemory(idx, { shapes, dtypes: ['float32', 'float32', 'float33' as DTypeName] })).toThrow(
      /unknown dtype float33/,
    );
    expect(() => planMemory(idx, { shapes, dtypes, matchRange: 1.5 })).toThrow(/matchRange/);
    expect(() => planMemory(idx, { shapes, dtypes, unused: new Set([idx.entryOf(a)]) })).toThrow(
      /marked unused but 1 reader/,
    );
  });
});

describe('planMemory: savings', () => {
  it('runs a chain of 20 relus in one buffer', () => {
    const x = v('x');
    let y = x;
    for (let i = 0; i < 20; i++) y = op1('relu', `relu${i}`, [y]);
    const idx = new IndexedGraph([y]);
    const { shapes, dtypes } = inferForward(idx, { x: [64, 64] });
    const plan = planMemory(idx, { shapes, dtypes });
    expect(plan.plannedBytes).toBe(64 * 64 * 4);
    expect(plan.naiveBytes).toBe(20 * 64 * 64 * 4);
    expect(planViolations(idx, plan, shapes, dtypes)).toEqual([]);
    // Without in-place two buffers alternate; without reuse either, one per entry.
    expect(planMemory(idx, { shapes, dtypes, inplace: false }).plannedBytes).toBe(2 * 64 * 64 * 4);
    expect(planMemory(idx, { shapes, dtypes, inplace: false, reuse: false }).plannedBytes).toBe(
      plan.naiveBytes,
    );
  });

  it("plans an MLP's forward and backward graph in less than the naive bytes", () => {
    const data = v('data');
    const label = v('label');
    const w1 = v('fc1_weight');
    const b1 = v('fc1_bias');
    const w2 = v('fc2_weight');
    const b2 = v('fc2_bias');
    const fc1 = op1('FullyConnected', 'fc1', [data, w1, b1], { num_hidden: 128 });
    const act = op1('Activation', 'relu1', [fc1], { act_type: 'relu' });
    const fc2 = op1('FullyConnected', 'fc2', [act, w2, b2], { num_hidden: 10 });
    const out = op1('SoftmaxOutput', 'softmax', [fc2, label]);
    const xs = [w1, b1, w2, b2];
    const grads = gradient({ registry: reg, ys: [out], yGrads: [v('softmax_head_grad')], xs });
    const idx = new IndexedGraph([out, ...grads]);
    const { shapes, dtypes } = inferForward(idx, {
      data: [32, 100],
      label: [32],
      fc1_weight: [128, 100],
      fc1_bias: [128],
      fc2_weight: [10, 128],
      fc2_bias: [10],
      softmax_head_grad: [32, 10],
    });
    // Gradients land in bound arrays, as in MXNet's executor.
    const external = new Set(grads.map((g) => idx.entryOf(g)));
    const plan = planMemory(idx, { shapes, dtypes, external });
    expect(plan.numDynamic).toBe(0);
    expect(planViolations(idx, plan, shapes, dtypes, external)).toEqual([]);
    expect(plan.plannedBytes).toBeLessThan(plan.naiveBytes);
    // fc1's data gradient is computed by _backward_FullyConnected but read by nobody.
    const fc1Bwd = grads[0]?.node as GraphNode;
    expect(plan.inplaceIndex[idx.entryId(idx.nodeId(fc1Bwd), 0)]).toBe(INPLACE_NEVER_READ);
    // The relu backward writes over the head gradient of relu1 in place.
    const reluBwd = idx.nodes.find((n) => n.node.op?.name === '_backward_Activation');
    expect(plan.inplaceIndex[idx.entryId(idx.nodeId(reluBwd?.node as GraphNode), 0)]).toBe(0);
  });
});

// ---- random DAGs ---------------------------------------------------------------------------------

type Step = readonly [number, number, number, number];

/** Build a random graph from fast-check's numbers: every op gets inputs of shapes it accepts. */
function buildRandom(steps: readonly Step[]) {
  const varShapes: Record<string, Shape> = {};
  const avail: { e: NodeEntry; shape: Shape }[] = [];
  const addVar = (shape: Shape): NodeEntry => {
    const name = `v${Object.keys(varShapes).length}`;
    varShapes[name] = shape;
    const e = v(name);
    avail.push({ e, shape });
    return e;
  };
  const dims = [1, 2, 3, 4, 6];
  addVar([4, 6]);
  steps.forEach(([kind, pick, p2, p3], i) => {
    // Mostly recent entries, so the graph grows deep rather than wide.
    const a = avail[avail.length - 1 - (pick % Math.min(avail.length, 6))] as (typeof avail)[number];
    const name = `n${i}`;
    const same = avail.filter((x) => x.shape.join() === a.shape.join());
    const add = (n: GraphNode, shapes: Shape[]): void => {
      shapes.forEach((s, o) => {
        avail.push({ e: entry(n, o), shape: s });
      });
    };
    switch (kind % 11) {
      case 0:
        addVar([dims[p2 % 5] as number, dims[p3 % 5] as number]);
        break;
      case 1:
      case 2: {
        const un = ['relu', 'exp', 'sigmoid', 'negative', '_copy', 'BlockGrad'][p2 % 6] as string;
        add(node(un, name, [a.e]), [a.shape]);
        break;
      }
      case 3:
      case 4: {
        const b = same[p2 % same.length] as (typeof avail)[number];
        add(node(p3 % 2 ? 'elemwise_add' : 'elemwise_mul', name, [a.e, b.e]), [a.shape]);
        break;
      }
      case 5: {
        const size = a.shape.reduce((x, y) => x * y, 1);
        add(node('Reshape', name, [a.e], { shape: [size] }), [[size]]);
        break;
      }
      case 6:
        if (a.shape.length === 2) add(node('transpose', name, [a.e]), [[a.shape[1], a.shape[0]] as Shape]);
        break;
      case 7:
        if (a.shape.length === 2) {
          const hidden = dims[p2 % 5] as number;
          const w = addVar([hidden, a.shape[1] as number]);
          add(node('FullyConnected', name, [a.e, w], { num_hidden: hidden, no_bias: true }), [
            [a.shape[0] as number, hidden],
          ]);
        }
        break;
      case 8:
        if ((a.shape[0] as number) % 2 === 0) {
          const half = [(a.shape[0] as number) / 2, ...a.shape.slice(1)];
          add(node('SliceChannel', name, [a.e], { num_outputs: 2, axis: 0 }), [half, half]);
        }
        break;
      case 9:
        add(node('zeros_like', name, [a.e]), [a.shape]);
        break;
      default:
        add(node('sum', name, [a.e], { axis: [0] }), [a.shape.slice(1)]);
    }
  });
  return { avail, varShapes };
}

describe('planMemory: properties over random DAGs', () => {
  it('never lets two live values share a buffer, and never plans more than naive', () => {
    const step = fc.tuple(fc.nat(50), fc.nat(50), fc.nat(50), fc.nat(50));
    fc.assert(
      fc.property(
        fc.array(step, { minLength: 1, maxLength: 80, size: 'max' }),
        fc.array(fc.nat(1000), { minLength: 1, maxLength: 4 }),
        fc.constantFrom<DTypeName>('float32', 'float16', 'float64'),
        fc.nat(1000),
        fc.boolean(),
        fc.boolean(),
        (steps, outPicks, dtype, salt, inplace, reuse) => {
          const { avail, varShapes } = buildRandom(steps);
          const last =
            [...avail].reverse().find((x) => !x.e.node.isVariable) ?? (avail[0] as (typeof avail)[number]);
          const outputs = [
            last.e,
            ...outPicks.map((k) => (avail[k % avail.length] as (typeof avail)[number]).e),
          ];
          const idx = new IndexedGraph(outputs);
          const varDtypes = Object.fromEntries(Object.keys(varShapes).map((k) => [k, dtype]));
          const { shapes, dtypes } = inferForward(idx, varShapes, varDtypes);
          // Some op outputs: unknown shape, external, or unused (when nobody reads them).
          const read = new Set<number>();
          for (const n of idx.nodes) for (const e of n.inputs) read.add(idx.entryId(e));
          for (const e of idx.outputs) read.add(idx.entryId(e));
          const external = new Set<number>();
          const unused = new Set<number>();
          idx.nodes.forEach((n, nid) => {
            if (n.node.op === null) return;
            for (let o = 0; o < n.node.numOutputs(); o++) {
              const eid = idx.entryId(nid, o);
              const r = (eid * 7919 + salt) % 23;
              if (r === 0) shapes[eid] = undefined;
              else if (r === 1) shapes[eid] = [-1, 2];
              else if (r === 2) external.add(eid);
              else if (r < 6 && !read.has(eid)) unused.add(eid);
            }
          });
          const plan = planMemory(idx, { shapes, dtypes, external, unused, inplace, reuse });
          expect(planViolations(idx, plan, shapes, dtypes, external, unused)).toEqual([]);
        },
      ),
      { seed: 20240611, numRuns: 300 },
    );
  });

  it('the checker catches a broken plan (two live entries forced onto one buffer)', () => {
    const x = v('x');
    const a = op1('exp', 'a', [x]);
    const b = op1('exp', 'b', [x]);
    const y = op1('elemwise_add', 'y', [a, b]);
    const idx = new IndexedGraph([y]);
    const { shapes, dtypes } = inferForward(idx, { x: [3] });
    const plan = planMemory(idx, { shapes, dtypes, inplace: false });
    expect(planViolations(idx, plan, shapes, dtypes)).toEqual([]);
    const broken = { ...plan, storageId: Int32Array.from(plan.storageId) };
    broken.storageId[idx.entryOf(b)] = plan.storageId[idx.entryOf(a)] as number;
    expect(planViolations(idx, broken, shapes, dtypes).join('\n')).toMatch(/overlap/);
    const small = { ...plan, storageBytes: plan.storageBytes.map(() => 4) };
    expect(planViolations(idx, small, shapes, dtypes).join('\n')).toMatch(/on storage/);
  });
});
