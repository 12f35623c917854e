/**
 * Helpers shared by the families' shape inference (MXNet's `shape_assign` logic): merging two
 * partially known shapes, where -1 marks an unknown dimension.
 */
import type { Shape } from '@mx/base';

/** Merge two shapes dim by dim (-1 = unknown); null when they contradict. */
export function mergeShape(a: Shape, b: Shape): number[] | null {
  if (a.length !== b.length) return null;
  const out: number[] = [];
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    if (x >= 0 && y >= 0 && x !== y) return null;
    out.push(x >= 0 ? x : y);
  }
  return out;
}
