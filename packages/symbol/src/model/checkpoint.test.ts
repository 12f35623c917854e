/**
 * Checkpoints: a round trip through files (the JSON is @mx/graph's saveJSON text, the .params file
 * is MXNet's legacy list with V2 records and arg:/aux: keys, checked byte-wise against the format in
 * mxnet-catalog.md §4), a reloaded graph binding and computing what the original did, the real
 * Gluon export of src/__fixtures__ loading, and the bad paths (missing files, keys without a
 * prefix, unnamed lists) leaving no arrays behind.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { Graph, saveJSON } from '@mx/graph';
import { createRuntime, type NDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import { simpleBind } from '../executor/index.js';
import { Builder } from '../executor/test-symbols.js';
import { loadCheckpoint, paramsFile, saveCheckpoint, symbolFile } from './index.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ workers: 0 })] });
const { nd } = rt;
const b = new Builder(rt.registry);
const dir = mkdtempSync(join(tmpdir(), 'mx-checkpoint-'));
afterAll(async () => {
  await nd.waitall();
  rmSync(dir, { recursive: true, force: true });
});
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const FASHION = join(ROOT, 'packages/symbol/src/__fixtures__/gluon-export/fashion-mnist');

const values = async (a: NDArray | undefined) => Array.from((await (a as NDArray).data()) as Float32Array);

function net() {
  const x = b.op('BatchNorm', 'bn', [
    b.v('data'),
    b.v('bn_gamma'),
    b.v('bn_beta'),
    b.v('bn_moving_mean'),
    b.v('bn_moving_var'),
  ]);
  return b.sym(
    b.op('Activation', 'out', [b.layer('FullyConnected', 'fc', x, { num_hidden: 3 })], { act_type: 'tanh' }),
  );
}

describe('checkpoints', () => {
  it('round-trips the symbol and the parameters, in MXNet’s file formats', async () => {
    const sym = net();
    const ex = simpleBind(rt, sym, { shapes: { data: [2, 4] }, gradReq: 'null' });
    const params: Record<string, NDArray> = {};
    ex.argNames.forEach((n, i) => {
      if (n === 'data') return;
      const a = ex.argArrays[i] as NDArray;
      a.set(Array.from({ length: a.size }, (_, k) => (k % 7) / 8 - 0.25 + i));
      params[n] = a;
    });
    ex.auxDict.bn_moving_mean?.set([0.5, -0.5, 1, 0]);
    ex.auxDict.bn_moving_var?.set([1, 2, 0.5, 4]);
    const prefix = join(dir, 'net');
    await saveCheckpoint(rt, prefix, 7, sym, params, ex.auxDict);
    expect(paramsFile(prefix, 7)).toBe(`${prefix}-0007.params`);
    expect(readFileSync(symbolFile(prefix), 'utf8')).toBe(saveJSON(new Graph(sym.outputs)));
    const bytes = readFileSync(paramsFile(prefix, 7));
    const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    expect(dv.getBigUint64(0, true)).toBe(0x112n); // list magic
    expect(dv.getBigUint64(16, true)).toBe(6n); // 4 args + 2 aux
    expect(dv.getUint32(24, true)).toBe(0xf993fac9); // a V2 record (MXNet 1.x)
    expect(bytes.includes(Buffer.from('arg:fc_weight'))).toBe(true);
    expect(bytes.includes(Buffer.from('aux:bn_moving_var'))).toBe(true);

    ex.argDict.data?.set([1, 2, 3, 4, -1, 0, 1, 2]);
    ex.forward();
    const want = await values(ex.outputs[0]);
    const ck = await loadCheckpoint(rt, prefix, 7);
    expect(Object.keys(ck.argParams).sort()).toEqual(Object.keys(params).sort());
    expect(Object.keys(ck.auxParams).sort()).toEqual(['bn_moving_mean', 'bn_moving_var']);
    for (const [k, v] of Object.entries(params))
      expect(await values(ck.argParams[k])).toEqual(await values(v));
    const again = simpleBind(rt, ck.symbol, { shapes: { data: [2, 4] }, gradReq: 'null' });
    again.copyParamsFrom(ck.argParams, ck.auxParams);
    again.forward({ data: ex.argDict.data as NDArray });
    expect(await values(again.outputs[0])).toEqual(want);
    for (const a of [...Object.values(ck.argParams), ...Object.values(ck.auxParams)]) a.dispose();
    again.dispose();
    ex.dispose();
  });

  it('loads the real Gluon export (MXNet 1.6) and passes fromJSON the text', async () => {
    const seen: string[] = [];
    const ck = await loadCheckpoint(rt, FASHION, 39, {
      fromJSON: (text, file) => {
        seen.push(file);
        return JSON.parse(text) as { nodes: unknown[] };
      },
    });
    expect(seen).toEqual([`${FASHION}-symbol.json`]);
    expect(ck.symbol.nodes).toHaveLength(14);
    expect(Object.keys(ck.argParams).sort()).toEqual([
      'hybridsequential16_conv0_bias',
      'hybridsequential16_conv0_weight',
      'hybridsequential16_dense0_bias',
      'hybridsequential16_dense0_weight',
      'hybridsequential16_dense1_bias',
      'hybridsequential16_dense1_weight',
    ]);
    expect(ck.argParams.hybridsequential16_conv0_weight?.shape).toEqual([8, 1, 4, 4]);
    expect(ck.auxParams).toEqual({});
    for (const a of Object.values(ck.argParams)) a.dispose();
  });

  it('refuses missing files, unprefixed keys and unnamed lists, leaving no arrays', async () => {
    const base = rt.memory().arrays;
    const err = async (p: Promise<unknown>) =>
      p.then(
        () => {
          throw new Error('expected a rejection');
        },
        (e: unknown) => {
          expect(isMXNetError(e)).toBe(true);
          return (e as Error).message;
        },
      );
    expect(await err(loadCheckpoint(rt, join(dir, 'nothing'), 1))).toMatch(
      /cannot read .*nothing-symbol\.json/,
    );
    const prefix = join(dir, 'bad');
    const x = nd.array([1, 2]);
    await saveCheckpoint(rt, prefix, 0, b.sym(b.v('x')), { x }, {});
    await nd.save(paramsFile(prefix, 1), { 'arg:x': x, plain: x });
    expect(await err(loadCheckpoint(rt, prefix, 1))).toMatch(
      /bad-0001\.params: key "plain" has no arg:\/aux: prefix/,
    );
    await nd.save(paramsFile(prefix, 2), [x, x]);
    expect(await err(loadCheckpoint(rt, prefix, 2))).toMatch(/holds 2 unnamed arrays/);
    await nd.save(paramsFile(prefix, 3), { 'arg:x': x, 'opt:state': x });
    const ck = await loadCheckpoint(rt, prefix, 3);
    expect(Object.keys(ck.argParams)).toEqual(['x']);
    ck.argParams.x?.dispose();
    expect(() => paramsFile(prefix, -1)).toThrow(/epoch must be a non-negative integer/);
    x.dispose();
    expect(rt.memory().arrays).toBe(base);
  });
});
