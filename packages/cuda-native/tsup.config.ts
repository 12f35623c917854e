/**
 * The shared tsup settings plus `shims`: the addon is found relative to the module's own file
 * (`import.meta.url` → the package root's prebuilds/), which the CJS build only has when tsup
 * injects its shim.
 */
import { defineConfig, type Options } from 'tsup';
import shared from '../../tsup.shared.js';

export default defineConfig({ ...(shared as Options), shims: true });
