/**
 * A click-log-like LibSVM file, written with a fixed seed so every run trains on the same rows:
 * 1,000,000 hashed binary features, 100 per row, half of them drawn from 10,000 frequent ids
 * (a learnable head) and half from the whole space (a long tail seen once or twice), and labels
 * from a planted linear model over the frequent ids plus noise. MXNet's own sparse example trains on Avazu, which this
 * machine cannot download; the file format, sizes per row and sparsity pattern are the same kind.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** Shape of the generated data. */
export interface SyntheticSpec {
  readonly features: number;
  readonly nnzPerRow: number;
  readonly frequentIds: number;
}

export const SPEC: SyntheticSpec = { features: 1_000_000, nnzPerRow: 100, frequentIds: 10_000 };

/** mulberry32: a small seeded PRNG (uniform in [0, 1)). */
export function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The sorted, distinct feature ids of one row. */
export function rowIds(rand: () => number, spec: SyntheticSpec = SPEC): number[] {
  const ids = new Set<number>();
  while (ids.size < spec.nnzPerRow) {
    const pool = rand() < 0.5 ? spec.frequentIds : spec.features;
    ids.add(Math.floor(rand() * pool));
  }
  return [...ids].sort((a, b) => a - b);
}

/**
 * Writes `rows` LibSVM lines (`label id:1 id:1 …`, zero-based ids) to `path`; the label is 1 when
 * the planted score plus Gaussian noise is positive. Returns the fraction of positive labels.
 */
export function writeLibSVM(path: string, rows: number, seed: number, spec: SyntheticSpec = SPEC): number {
  const truth = prng(7); // the planted weights: the same for every file
  const planted = new Float32Array(spec.features);
  // Only the frequent ids carry signal; the long tail is noise a model has to learn to ignore.
  for (let i = 0; i < spec.frequentIds; i++) planted[i] = gaussian(truth);
  const rand = prng(seed);
  const lines: string[] = [];
  let positive = 0;
  for (let r = 0; r < rows; r++) {
    const ids = rowIds(rand, spec);
    let score = 0;
    for (const id of ids) score += planted[id] as number;
    const label = score / Math.sqrt(ids.length) + 0.2 * gaussian(rand) > 0 ? 1 : 0;
    positive += label;
    lines.push(`${label} ${ids.map((id) => `${id}:1`).join(' ')}`);
  }
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${lines.join('\n')}\n`);
  return positive / rows;
}

function gaussian(rand: () => number): number {
  const u = Math.max(rand(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
}
