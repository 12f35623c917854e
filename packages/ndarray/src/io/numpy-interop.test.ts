/**
 * Round trips through real NumPy: files we write are read by `numpy.load`, files NumPy writes
 * (every dtype, Fortran order, big-endian, format 2.0, savez, savez_compressed) are read by us.
 * Skipped, with the reason printed, when python3 or numpy is missing.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadAny } from './index.js';
import { loadNpy, saveNpy } from './npy.js';
import { loadNpz, saveNpz } from './npz.js';
import { DTYPE_NAMES, plain, sample } from './test-util.js';
import type { HostArray } from './types.js';

function python(script: string, cwd: string): { ok: boolean; out: string } {
  const r = spawnSync('python3', ['-c', script], { cwd, encoding: 'utf8', timeout: 60_000 });
  return { ok: r.status === 0, out: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}` };
}

const probe = python('import numpy; print(numpy.__version__)', tmpdir());
const skipReason = probe.ok
  ? null
  : `python3 with numpy is not available (${probe.out.trim().split('\n').pop()})`;
if (skipReason !== null) console.warn(`skipping NumPy interop tests: ${skipReason}`);

/** Python: describe an array as JSON with exact values (bits for float16/bfloat16, strings for 64-bit ints). */
const DESCRIBE = `
import json, numpy as np
def describe(a):
    if a.dtype.names == ('bfloat16',):
        return {'dtype': 'bfloat16', 'shape': list(a.shape), 'data': a['bfloat16'].ravel().tolist()}
    dt = a.dtype
    if dt == np.float16:
        vals = a.view('<u2').ravel().tolist()
    elif dt.kind in 'iu' and dt.itemsize == 8:
        vals = [str(v) for v in a.ravel().tolist()]
    elif dt == np.bool_:
        vals = [int(v) for v in a.ravel().tolist()]
    else:
        vals = a.ravel(order='C').tolist()
    name = 'bool' if dt == np.bool_ else dt.name
    return {'dtype': name, 'shape': list(a.shape), 'data': vals}
`;

function expected(a: HostArray): { dtype: string; shape: number[]; data: (number | string)[] } {
  const p = plain(a);
  return {
    dtype: p.dtype,
    shape: p.shape,
    data: p.data.map((v) => (typeof v === 'bigint' ? v.toString() : v)),
  };
}

describe.skipIf(skipReason !== null)('NumPy interop', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mx-io-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('numpy.load reads our .npy files of every dtype and shape', () => {
    const shapes = [[], [0], [2, 0, 1], [3], [4, 5, 6], [0, 0, 0]];
    const want: Record<string, unknown> = {};
    for (const dtype of DTYPE_NAMES) {
      shapes.forEach((shape, i) => {
        const a = sample(dtype, shape, i);
        const name = `${dtype}_${i}.npy`;
        writeFileSync(join(dir, name), saveNpy(a));
        want[name] = expected(a);
      });
    }
    const r = python(
      `${DESCRIBE}
import os
out = {f: describe(np.load(f)) for f in sorted(os.listdir('.')) if f.endswith('.npy')}
print(json.dumps(out))`,
      dir,
    );
    expect(r.ok, r.out).toBe(true);
    expect(JSON.parse(r.out)).toEqual(want);
  });

  it('numpy.load reads our .npz files (arr_i and dict keys)', () => {
    const list = [sample('float32', [2, 3]), sample('int64', []), sample('bool', [0, 5, 0])];
    const dict = { 'net.0.weight': sample('float64', [4]), 'aux:bn.mean': sample('uint8', [2, 2]) };
    writeFileSync(join(dir, 'list.npz'), saveNpz(list));
    writeFileSync(join(dir, 'dict.npz'), saveNpz(dict));
    const r = python(
      `${DESCRIBE}
out = {}
for f in ['list.npz', 'dict.npz']:
    with np.load(f) as z:
        out[f] = {k: describe(z[k]) for k in z.files}
print(json.dumps(out))`,
      dir,
    );
    expect(r.ok, r.out).toBe(true);
    expect(JSON.parse(r.out)).toEqual({
      'list.npz': { arr_0: expected(list[0]!), arr_1: expected(list[1]!), arr_2: expected(list[2]!) },
      'dict.npz': Object.fromEntries(Object.entries(dict).map(([k, v]) => [k, expected(v)])),
    });
  });

  it('we read what NumPy writes: dtypes, Fortran order, big-endian, version 2.0, savez, savez_compressed', () => {
    const r = python(
      `${DESCRIBE}
from numpy.lib import format as fmt
arrs = {}
for i, dt in enumerate(['bool', 'int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'uint64', 'float16', 'float32', 'float64']):
    a = (np.arange(24).reshape(2, 3, 4) * 3 - 30)
    a = (a % 2 == 0) if dt == 'bool' else a.astype(dt) if dt[0] != 'u' else (a + 36).astype(dt)
    arrs['c_' + dt] = a
    arrs['f_' + dt] = np.asfortranarray(a)
    arrs['t_' + dt] = a.transpose(2, 0, 1)  # a non-contiguous view: saved as Fortran order when possible
arrs['big_endian'] = np.arange(5, dtype='>i4') - 2
arrs['big_endian_f8'] = np.linspace(-1, 1, 7).astype('>f8')
arrs['scalar'] = np.array(3.5, dtype=np.float32)
arrs['empty'] = np.zeros((0, 3), dtype=np.int16)
out = {}
for k, a in arrs.items():
    np.save(k + '.npy', a)
    out[k] = describe(np.array(a, order='C').astype(a.dtype.newbyteorder('=')))
with open('v2.npy', 'wb') as f:
    fmt.write_array(f, arrs['c_float32'], version=(2, 0))
out['v2'] = out['c_float32']
np.savez('plain.npz', arrs['c_int32'], arrs['scalar'], w=arrs['f_float64'])
np.savez_compressed('compressed.npz', x=arrs['c_uint16'], y=np.arange(1000, dtype=np.int64) % 7)
out['compressed_y'] = describe(np.arange(1000, dtype=np.int64) % 7)
print(json.dumps(out))`,
      dir,
    );
    expect(r.ok, r.out).toBe(true);
    const want = JSON.parse(r.out) as Record<string, unknown>;
    const names = Object.keys(want).filter((k) => k !== 'v2' && k !== 'compressed_y');
    expect(names.length).toBe(40);
    for (const k of names) {
      const a = loadNpy(new Uint8Array(readFileSync(join(dir, `${k}.npy`))), `${k}.npy`);
      expect(expected(a), k).toEqual(want[k]);
    }
    expect(expected(loadNpy(new Uint8Array(readFileSync(join(dir, 'v2.npy')))))).toEqual(want.v2);
    expect(readFileSync(join(dir, 'v2.npy'))[6]).toBe(2);

    const plainNpz = loadNpz(new Uint8Array(readFileSync(join(dir, 'plain.npz'))), 'plain.npz');
    // NumPy stores keyword arrays first; we keep the archive's order.
    expect(plainNpz.names).toEqual(['w', 'arr_0', 'arr_1']);
    expect(plainNpz.arrays.map(expected)).toEqual([want.f_float64, want.c_int32, want.scalar]);
    const compressed = loadAny(new Uint8Array(readFileSync(join(dir, 'compressed.npz'))), 'compressed.npz');
    expect(compressed.names).toEqual(['x', 'y']);
    expect(compressed.arrays.map(expected)).toEqual([want.c_uint16, want.compressed_y]);
  });
});
