/**
 * Iterators accept a runtime or its `nd` namespace; this returns the namespace. Duck-typed (a
 * runtime has `nd`, the namespace has no such member), so it also holds when a bundler gave the
 * caller another copy of @mx/ndarray's module.
 */
import type { Nd, Runtime } from '@mx/ndarray';

export type NdLike = Nd | Runtime;

export function ndOf(x: NdLike): Nd {
  const nd = (x as { readonly nd?: Nd }).nd;
  return nd ?? (x as Nd);
}
