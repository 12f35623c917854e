/**
 * Members of `SymbolApi` that are not operators. An operator registered under one of these names
 * is reached through `sym.invoke(name, ...)` instead (the generator skips it as well), so the
 * API's own methods can never be replaced by a registry entry.
 */
export const API_MEMBERS: ReadonlySet<string> = new Set([
  'registry',
  'runtime',
  'warn',
  'versions',
  'nameManager',
  'currentAttrScope',
  'var',
  'Variable',
  'Group',
  'fromJSON',
  'load',
  'invoke',
  'prefix',
  'withNameManager',
  'attrScope',
  'withAttrScope',
  'zeros',
  'ones',
  'full',
  'pow',
  'power',
  'maximum',
  'minimum',
  'hypot',
]);
