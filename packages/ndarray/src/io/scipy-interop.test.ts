/**
 * Files we write, read by the real `scipy.sparse.load_npz` (/usr/bin/python3): for every golden
 * case, the matrix SciPy loads from our file must be the one SciPy saved (dense values, dtype,
 * shape), in canonical form. Skipped, with the reason printed, when python3 or SciPy is missing.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadScipyNpz, saveScipyNpz } from './scipy-npz.js';
import { fixture, golden } from './scipy-test-util.js';

const PYTHON = '/usr/bin/python3';

function python(script: string, args: string[] = []): { ok: boolean; out: string } {
  const r = spawnSync(PYTHON, ['-c', script, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { ok: r.status === 0, out: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}` };
}

const probe = python('import scipy.sparse; print(scipy.__version__)');
const skipReason = probe.ok
  ? null
  : `${PYTHON} with scipy is not available (${probe.out.trim().split('\n').pop()})`;
if (skipReason !== null) console.warn(`skipping SciPy interop tests: ${skipReason}`);

const READ = `
import json, sys, numpy as np, scipy.sparse as sp
out = {}
for path in sys.argv[1:]:
    m = sp.load_npz(path)
    out[path] = {'format': m.format, 'dtype': str(m.dtype), 'shape': list(m.shape),
                 'canonical': bool(m.has_canonical_format),
                 'dense': [v.item() if not isinstance(v.item(), bool) else int(v.item()) for v in m.toarray().reshape(-1)]}
print(json.dumps(out))
`;

describe.skipIf(skipReason !== null)('scipy.sparse.load_npz reads our files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mx-scipy-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('gives back every golden matrix, as csr in canonical form', () => {
    const cases = golden.cases.filter((c) => c.refused === undefined);
    const paths = cases.map((c) => {
      const path = join(dir, c.file);
      writeFileSync(path, saveScipyNpz(loadScipyNpz(fixture(c.file), c.file).array));
      return path;
    });
    const r = python(READ, paths);
    expect(r.ok, r.out).toBe(true);
    const got = JSON.parse(r.out) as Record<string, { dense: number[] }>;
    cases.forEach((c, i) => {
      const path = paths[i] as string;
      expect(got[path]).toEqual({
        format: 'csr',
        dtype: c.dtype,
        shape: c.shape,
        canonical: true,
        dense: c.dense,
      });
    });
  });

  it('reads int32 index arrays and an all-zero matrix', () => {
    const path = join(dir, 'int32.npz');
    writeFileSync(
      path,
      saveScipyNpz({
        stype: 'csr',
        shape: [2, 3],
        dtype: 'float64',
        storageShape: [2],
        data: Float64Array.of(0.5, -3),
        indices: Int32Array.of(2, 0),
        indptr: Int32Array.of(0, 1, 2),
      }),
    );
    const empty = join(dir, 'empty.npz');
    writeFileSync(
      empty,
      saveScipyNpz({
        stype: 'csr',
        shape: [3, 0],
        dtype: 'float32',
        storageShape: [0],
        data: new Float32Array(0),
        indices: new BigInt64Array(0),
        indptr: new BigInt64Array(4),
      }),
    );
    const r = python(READ, [path, empty]);
    expect(r.ok, r.out).toBe(true);
    const got = JSON.parse(r.out) as Record<string, unknown>;
    expect(got[path]).toEqual({
      format: 'csr',
      dtype: 'float64',
      shape: [2, 3],
      canonical: true,
      dense: [0, 0, 0.5, -3, 0, 0],
    });
    expect(got[empty]).toEqual({
      format: 'csr',
      dtype: 'float32',
      shape: [3, 0],
      canonical: true,
      dense: [],
    });
  });
});
