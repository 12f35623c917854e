/**
 * The unit of the WGSL math library: a function's source and the `mx_*` functions it calls, so a
 * shader includes exactly the helpers its expression needs (see math.ts `mathLib`).
 */
export interface Snippet {
  readonly deps: readonly string[];
  readonly code: string;
}

export const S = (code: string, ...deps: string[]): Snippet => ({ deps, code });
