/**
 * What @mx/ndarray's `nd.*` declaration generator and @mx/symbol's `sym.*` generator share: turning
 * operator and argument names into TypeScript identifiers and type names, writing doc comments, and
 * finding a valid value for every required parameter of an op (both generators probe ops with it).
 * One copy, so the two generated surfaces name things by the same rules.
 */
import type { Op, ParamSpec } from '@mx/ops';

/** Names usable as `nd.<name>` / `sym.<name>` (the others stay reachable by string key). */
export const IDENT = /^[A-Za-z_$][\w$]*$/;

/** Params `nd.<op>` takes as call options, left out of the generated params types. */
export const INVOKE_KEYS: ReadonlySet<string> = new Set(['out', 'ctx', 'req']);

const RESERVED = new Set(
  'break case catch class const continue debugger default delete do else enum export extends false finally for function if import in instanceof new null return super switch this throw true try typeof var void while with yield let static implements interface package private protected public await arguments eval'.split(
    ' ',
  ),
);

/** `_backward_dot` → `BackwardDot` (params type names). */
export function pascal(name: string): string {
  return name
    .replace(/^_+/, '')
    .split('_')
    .filter((w) => w.length > 0)
    .map((w) => (w[0] as string).toUpperCase() + w.slice(1))
    .join('');
}

/** Doc comment text: no comment terminators, no accidental tags. */
export const escapeDoc = (s: string) => s.replace(/\*\//g, '*\\/').replace(/@/g, '\\@');

/** Wrap prose to `width` columns (doc comments are not reflowed by the formatter). */
function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  for (const para of text.split('\n')) {
    let line = '';
    for (const word of para.split(/\s+/).filter((w) => w.length > 0)) {
      if (line.length > 0 && line.length + 1 + word.length > width) {
        out.push(line);
        line = word;
      } else line = line.length > 0 ? `${line} ${word}` : word;
    }
    out.push(line);
  }
  return out;
}

/** A doc comment of paragraphs wrapped to 100 columns; a paragraph starting with a tag stays whole. */
export function docComment(indent: string, paragraphs: readonly string[]): string {
  const lines: string[] = [];
  paragraphs.forEach((p, i) => {
    if (i > 0) lines.push('');
    for (const l of p.startsWith('@') ? [p] : wrap(p, 100 - indent.length)) lines.push(l);
  });
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((l) => (l ? `${indent} * ${l}` : `${indent} *`)).join('\n')}\n${indent} */\n`;
}

/** A parameter name for `name`, unique within `taken` (which it joins). */
export function identifier(name: string, taken: Set<string>): string {
  let id = name.replace(/[^\w$]/g, '_');
  if (!IDENT.test(id) || RESERVED.has(id)) id = `${id}_`;
  while (taken.has(id)) id = `${id}_`;
  taken.add(id);
  return id;
}

/** True when `spec` accepts `v`. */
export function parses(spec: ParamSpec<unknown>, v: unknown, key: string): boolean {
  try {
    spec.parse(v, key);
    return true;
  } catch {
    return false;
  }
}

/** A valid value for every required field (undefined when some field has none we can guess). */
export function sampleParams(op: Op): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(op.params)) {
    if (!spec.required) continue;
    const candidates = [...(spec.choices ?? []), 2, 1, 3, 0, 1.5, [1], [1, 1], 'x'];
    const v = candidates.find((c) => parses(spec, c, key));
    if (v === undefined) return undefined;
    out[key] = v;
  }
  return out;
}
