/**
 * Property test of the loader on corrupted versions of real files: truncations, flipped characters,
 * replaced numbers, deleted keys and replaced values. Every outcome is a graph or an MXNetError —
 * never another error type, never a hang — and whatever loads re-saves stably (save → load → save
 * gives the same text). Fixed seed and bounded runs so CI is deterministic.
 */
import { readFileSync } from 'node:fs';
import { MXNetError } from '@mx/base';
import { createOpRegistry } from '@mx/ops';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadJSON, saveJSON } from './index.js';

const registry = createOpRegistry();
const FIXTURES = new URL('../__fixtures__/', import.meta.url);
const SOURCES = [
  'mlp_symbol.json',
  'model1_v10200.json',
  'save_000800.json',
  'fashion-mnist-symbol.json',
].map((name) => readFileSync(new URL(name, FIXTURES), 'utf8'));
// A 0.8-style file exercising the upgraders, control deps and argmax.
SOURCES.push(
  JSON.stringify({
    nodes: [
      { op: 'null', name: 'x', inputs: [], attr: { lr_mult: '2', __shape__: '(0, 4)' } },
      { op: 'null', name: 'g', inputs: [] },
      { op: 'null', name: 'b', inputs: [] },
      {
        op: 'BatchNorm',
        name: 'bn',
        param: { eps: '0.01' },
        attr: { gamma_wd_mult: '0' },
        inputs: [
          [0, 0],
          [1, 0],
          [2, 0],
        ],
      },
      { op: 'argmax', name: 'am', attr: { axis: '-1' }, inputs: [[3, 0]], control_deps: [3] },
    ],
    arg_nodes: [0, 1, 2],
    heads: [[4, 0]],
  }),
);

const NUMBERS = [
  '0',
  '1',
  '-1',
  '2',
  '3',
  '10',
  '3.5',
  '1e9',
  '4294967295',
  '4294967296',
  '99999999999999999999',
  '-0',
];
const CHARS = ['{', '}', '[', ']', ',', ':', '"', '\\', ' ', '0', '9', '-', 'a', 'n', '\n', '\u0001', 'é'];

type Mutation =
  | { kind: 'truncate'; at: number }
  | { kind: 'flip'; at: number; ch: string }
  | { kind: 'number'; which: number; value: string }
  | { kind: 'deleteKey'; which: number }
  | { kind: 'replaceValue'; which: number; value: unknown }
  | { kind: 'nodeField'; which: number; field: string; value: unknown };

const FIELDS = [
  'op',
  'name',
  'inputs',
  'attrs',
  'attr',
  'param',
  'control_deps',
  'subgraphs',
  'backward_source_id',
];
const VALUES = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom<unknown>(
    'null',
    'Concat',
    'BatchNorm',
    '(0, 0)',
    [[0, 0, 0]],
    [[99, 0]],
    { num_args: '3' },
    undefined,
  ),
);

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), ch: fc.constantFrom(...CHARS) }),
  fc.record({ kind: fc.constant('number' as const), which: fc.nat(), value: fc.constantFrom(...NUMBERS) }),
  fc.record({ kind: fc.constant('deleteKey' as const), which: fc.nat() }),
  fc.record({ kind: fc.constant('replaceValue' as const), which: fc.nat(), value: VALUES }),
  fc.record({
    kind: fc.constant('nodeField' as const),
    which: fc.nat(),
    field: fc.constantFrom(...FIELDS),
    value: VALUES,
  }),
);

/** Every object and array in a parsed document, with their keys, for structural mutations. */
function containers(root: unknown): [Record<string, unknown> | unknown[], string | number][] {
  const out: [Record<string, unknown> | unknown[], string | number][] = [];
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (Array.isArray(v)) {
      v.forEach((x, i) => {
        out.push([v, i]);
        stack.push(x);
      });
    } else if (typeof v === 'object' && v !== null) {
      for (const [k, x] of Object.entries(v)) {
        out.push([v as Record<string, unknown>, k]);
        stack.push(x);
      }
    }
  }
  return out;
}

function apply(text: string, m: Mutation): string {
  switch (m.kind) {
    case 'truncate':
      return text.slice(0, m.at % (text.length + 1));
    case 'flip': {
      const at = m.at % Math.max(1, text.length);
      return text.slice(0, at) + m.ch + text.slice(at + 1);
    }
    case 'number': {
      const nums = [...text.matchAll(/\d+/g)];
      const hit = nums[m.which % Math.max(1, nums.length)];
      if (hit === undefined) return text;
      return text.slice(0, hit.index) + m.value + text.slice(hit.index + hit[0].length);
    }
    default: {
      let root: unknown;
      try {
        root = JSON.parse(text);
      } catch {
        return text;
      }
      if (m.kind === 'nodeField') {
        const nodes = (root as { nodes?: unknown }).nodes;
        const node = Array.isArray(nodes) ? nodes[m.which % Math.max(1, nodes.length)] : undefined;
        if (typeof node !== 'object' || node === null) return text;
        (node as Record<string, unknown>)[m.field] = m.value; // undefined: JSON.stringify drops the key
        return JSON.stringify(root);
      }
      const slots = containers(root);
      const slot = slots[m.which % Math.max(1, slots.length)];
      if (slot === undefined) return text;
      const [holder, key] = slot;
      if (m.kind === 'deleteKey') {
        if (Array.isArray(holder)) holder.splice(key as number, 1);
        else delete holder[key as string];
      } else if (Array.isArray(holder)) holder[key as number] = m.value;
      else holder[key as string] = m.value;
      return JSON.stringify(root);
    }
  }
}

describe('loadJSON on corrupted files (fast-check)', () => {
  it('loads or throws MXNetError, and what loads re-saves stably', () => {
    let loadedCount = 0;
    let failedCount = 0;
    fc.assert(
      fc.property(
        fc.nat({ max: SOURCES.length - 1 }),
        fc.array(mutation, { minLength: 1, maxLength: 3 }),
        fc.boolean(),
        (source, mutations, npShape) => {
          const text = mutations.reduce(apply, SOURCES[source] as string);
          const t0 = performance.now();
          let saved: string;
          try {
            const { graph } = loadJSON(text, registry, { file: 'fuzz.json', warn: () => {}, npShape });
            saved = saveJSON(graph);
          } catch (e) {
            if (!(e instanceof MXNetError)) throw e;
            expect(e.message).toContain('fuzz.json');
            failedCount++;
            expect(performance.now() - t0).toBeLessThan(2000);
            return;
          }
          loadedCount++;
          const again = saveJSON(loadJSON(saved, registry, { warn: () => {} }).graph);
          expect(again).toBe(saved);
          expect(performance.now() - t0).toBeLessThan(2000);
        },
      ),
      { seed: 20240611, numRuns: 300 },
    );
    // Both outcomes occur, so the property is not vacuous.
    expect(loadedCount).toBeGreaterThan(10);
    expect(failedCount).toBeGreaterThan(10);
  });
});
