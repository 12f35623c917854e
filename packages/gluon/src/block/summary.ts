/**
 * `Block.summary` (MXNet 2.0): runs one forward with a hook on every non-container block and prints
 * MXNet's table — each layer's output shape and parameter count, then totals, trainable,
 * non-trainable and shared counts. Kept out of block.ts because it is a report, not block logic;
 * the text layout is MXNet's (Python's `'{:>20}  {:>42} {:>15}'`) so output reads the same.
 */
import { MXNetError, shapeToString } from '@mx/base';
import { NDArray } from '@mx/ndarray';
import type { Parameter } from './parameter.js';

/** What the summary needs of a block (Block has it; named here so this file needs no Block import). */
export interface SummaryBlock {
  readonly blockName: string;
  readonly params: ReadonlyMap<string, Parameter>;
  readonly forward: (...args: never[]) => unknown;
  apply(fn: (block: SummaryBlock) => void): unknown;
  registerForwardHook(hook: (block: SummaryBlock, inputs: readonly unknown[], output: unknown) => void): {
    detach(): void;
  };
}

interface Row {
  readonly name: string;
  readonly shape: string;
  readonly params: number;
  readonly trainable: number;
  readonly shared: number;
}

/** Python's str() of a (nested) output's shapes: `(2, 3)`, or `(2, 3), (2,)` for several. */
function shapeText(x: unknown): string {
  const one = (v: unknown): string =>
    v instanceof NDArray
      ? shapeToString(v.shape)
      : Array.isArray(v)
        ? `[${v.map(one).join(', ')}]`
        : String(v);
  return Array.isArray(x) ? x.map(one).join(', ') : one(x);
}

const size = (p: Parameter) => (p.shape ?? []).reduce((a, b) => a * b, 1);

/** Builds the summary text of `block` on `inputs` (also running the forward). */
export function summaryText(
  block: SummaryBlock,
  inputs: readonly unknown[],
  isContainer: (b: SummaryBlock) => boolean,
): string {
  const rows: Row[] = [
    {
      name: 'Input',
      shape: shapeText(inputs.length === 1 ? inputs[0] : inputs),
      params: 0,
      trainable: 0,
      shared: 0,
    },
  ];
  const seen = new Set<Parameter>();
  const handles: { detach(): void }[] = [];
  try {
    block.apply((b) => {
      if ('isHybridized' in b && (b as { isHybridized: boolean }).isHybridized) {
        throw new MXNetError(`"${b.blockName}" must not be hybridized to print summary.`, {
          hint: 'call summary() before hybridize(), or hybridize(false) first',
        });
      }
      if (isContainer(b)) return;
      handles.push(
        b.registerForwardHook((blk, _ins, out) => {
          let params = 0;
          let trainable = 0;
          let shared = 0;
          for (const p of blk.params.values()) {
            const n = size(p);
            params += n;
            if (p.gradReq !== 'null') trainable += n;
            if (seen.has(p)) shared += n;
            else seen.add(p);
          }
          rows.push({
            name: `${blk.blockName}-${rows.length}`,
            shape: shapeText(out),
            params,
            trainable,
            shared,
          });
        }),
      );
    });
    const out = (block.forward as (...a: unknown[]) => unknown)(...inputs);
    for (const a of Array.isArray(out) ? out : [out])
      if (a instanceof NDArray && !inputs.includes(a)) a.dispose();
  } finally {
    for (const h of handles) h.detach();
  }
  const line = (a: string, b: string, c: string) => `${a.padStart(20)}  ${b.padStart(42)} ${c.padStart(15)}`;
  const total = rows.reduce((s, r) => s + r.params, 0);
  const trainable = rows.reduce((s, r) => s + r.trainable, 0);
  const shared = rows.reduce((s, r) => s + r.shared, 0);
  return [
    '-'.repeat(80),
    line('Layer (type)', 'Output Shape', 'Param #'),
    '='.repeat(80),
    ...rows.map((r) => line(r.name, r.shape, String(r.params))),
    '='.repeat(80),
    'Parameters in forward computation graph, duplicate included',
    `   Total params: ${total}`,
    `   Trainable params: ${trainable}`,
    `   Non-trainable params: ${total - trainable}`,
    `Shared params in forward computation graph: ${shared}`,
    `Unique parameters in model: ${total - shared}`,
    '-'.repeat(80),
  ].join('\n');
}
