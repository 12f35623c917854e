/**
 * Name-pattern dispatch (MXNet `__call__` with an InitDesc, `_legacy_init` with a string), the
 * `__init__` attribute, Mixed, dumps/create round trips against Python's json.dumps strings
 * (tools/golden/gluon/init_metric.py) and the bad paths.
 */
import { MXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime, type NDArray } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import golden from '../__golden__/init.json' with { type: 'json' };
import {
  Bilinear,
  Constant,
  create,
  createInitializerRegistry,
  InitDesc,
  Initializer,
  LSTMBias,
  Mixed,
  MSRAPrelu,
  Normal,
  One,
  Orthogonal,
  parsePythonJson,
  pythonJson,
  Uniform,
  Xavier,
  Zero,
} from './index.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })], seed: 3 });
const { nd } = rt;
afterAll(async () => {
  await rt.dispose();
});

async function fill(
  init: Initializer,
  desc: InitDesc | string | { name: string; attrs: object },
  shape: number[],
) {
  const a = nd.full(shape, 5);
  try {
    init.init(desc as InitDesc, a);
    return Array.from((await a.data()) as Float32Array);
  } finally {
    a.dispose();
  }
}

const isUniform = (v: number[], s: number) =>
  v.every((x) => Math.abs(x) <= s) && new Set(v).size > v.length / 2;

describe('name dispatch', () => {
  const init = new Uniform(0.1);

  it('routes legacy string names as MXNet _legacy_init does', async () => {
    expect(isUniform(await fill(init, 'fc1_weight', [20]), 0.1)).toBe(true);
    expect(await fill(init, 'fc1_bias', [3])).toEqual([0, 0, 0]);
    expect(await fill(init, 'bn_gamma', [3])).toEqual([1, 1, 1]);
    expect(await fill(init, 'bn_beta', [3])).toEqual([0, 0, 0]);
    for (const n of ['bn_moving_mean', 'bn_running_mean', 'x_moving_inv_var', 'x_moving_avg', 'q_min']) {
      expect(await fill(init, n, [2])).toEqual([0, 0]);
    }
    for (const n of ['bn_moving_var', 'bn_running_var', 'q_max'])
      expect(await fill(init, n, [2])).toEqual([1, 1]);
    expect(await fill(init, 'stn_loc_weight', [2, 2])).toEqual([0, 0, 0, 0]);
    expect(await fill(init, 'stn_loc_bias', [6])).toEqual([1, 0, 0, 0, 1, 0]);
    const up = golden.bilinear[1] as { shape: number[]; values: number[] };
    expect(await fill(init, 'upsampling0_weight', up.shape)).toEqual(up.values);
  });

  it('routes InitDesc names as MXNet __call__ does (no upsampling/stn rules there)', async () => {
    expect(isUniform(await fill(init, new InitDesc('upsampling0_weight'), [2, 2, 2, 2]), 0.1)).toBe(true);
    expect(await fill(init, new InitDesc('stn_loc_bias'), [3])).toEqual([0, 0, 0]);
    expect(await fill(init, new InitDesc('dense0_bias'), [2])).toEqual([0, 0]);
    expect(await fill(init, new InitDesc('bn_gamma'), [2])).toEqual([1, 1]);
    expect(await fill(init, new InitDesc('act_max'), [2])).toEqual([1, 1]);
    expect(await fill(init, new InitDesc('act_min'), [2])).toEqual([0, 0]);
    expect(await fill(init, new InitDesc('bn_running_var'), [2])).toEqual([1, 1]);
    expect(await fill(init, { name: 'fc_bias', attrs: {} }, [2])).toEqual([0, 0]);
  });

  it('quantized weights get int8 values in [-127, 127)', async () => {
    const q = nd.zeros([500], { dtype: 'int8' });
    init.init(new InitDesc('conv_weight_quantize'), q);
    const v = Array.from((await q.data()) as Int8Array);
    expect(v.every((x) => x >= -127 && x < 127)).toBe(true);
    expect(new Set(v).size).toBeGreaterThan(50);
    q.dispose();
    expect(await fill(init, new InitDesc('conv_bias_quantize'), [2])).toEqual([0, 0]);
  });

  it('an __init__ attribute wins over the name (instance, name, JSON)', async () => {
    const attrs = (spec: unknown) => new InitDesc('fc_bias', { attrs: { __init__: spec } });
    expect(await fill(init, attrs(new Constant(3)), [2])).toEqual([3, 3]);
    expect(await fill(init, attrs('ones'), [2])).toEqual([1, 1]);
    expect(await fill(init, attrs('["constant", {"value": -2}]'), [2])).toEqual([-2, -2]);
    expect(await fill(init, { name: 'fc_bias', attrs: { __init__: new One() } }, [2])).toEqual([1, 1]);
    // No __init__ (or null, MXNet's Parameter default): the name decides.
    expect(await fill(init, new InitDesc('fc_bias', { attrs: { __init__: null } }), [2])).toEqual([0, 0]);
  });

  it('sets globalInit to the first initializer asked', () => {
    const d = new InitDesc('fc_bias');
    const a = nd.zeros([2]);
    init.init(d, a);
    expect(d.globalInit).toBe(init);
    new Zero().init(d, a);
    expect(d.globalInit).toBe(init);
    a.dispose();
  });

  it("fails on unknown names with MXNet's text, and on bad __init__ / descs", async () => {
    const a = nd.full([2], 5);
    expect(() => init.init('fc_scale', a)).toThrow(
      'Unknown initialization pattern for fc_scale. Default initialization is now limited to "weight", "bias", "gamma" (1.0), and "beta" (0.0).',
    );
    expect(() => init.init(new InitDesc('moving'), a)).toThrow(/Unknown initialization pattern for moving/);
    expect(() => init.init(new InitDesc('w', { attrs: { __init__: 'nope' } }), a)).toThrow(
      /cannot create the __init__ initializer of w: initializer 'nope' is not registered/,
    );
    expect(() => init.init({ name: 'w', attrs: { __init__: 'zeros' } }, a)).toThrow(/is not an initializer/);
    expect(() => init.init(42 as unknown as string, a)).toThrow(MXNetError);
    expect(() => init.init('w_weight', [1, 2] as unknown as NDArray)).toThrow(/arr must be an NDArray/);
    expect(() => init.init('stn_loc_bias', a)).toThrow(/6 elements/);
    expect(Array.from((await a.data()) as Float32Array)).toEqual([5, 5]);
    a.dispose();
  });
});

describe('Mixed', () => {
  it('uses the first pattern matching the start of the name (Python re.match)', async () => {
    const m = new Mixed(['weight', '.*'], [new Constant(3), new Constant(2)]);
    // 'weight' does not match 'fc_weight' at its start: the catch-all wins.
    expect(await fill(m, 'fc_weight', [2])).toEqual([2, 2]);
    expect(await fill(m, 'weight1_weight', [2])).toEqual([3, 3]);
    // The chosen initializer still applies its name rules (MXNet calls it with the name).
    expect(await fill(m, 'fc_bias', [2])).toEqual([0, 0]);
    const m2 = new Mixed(['.*conv', '.*'], [new Constant(7), new One()]);
    expect(await fill(m2, new InitDesc('stage1_conv0_weight'), [2])).toEqual([7, 7]);
    expect(await fill(m2, 'fc_weight', [2])).toEqual([1, 1]);
  });

  it('fails on a name no pattern matches, and on bad arguments', () => {
    const m = new Mixed(['conv'], [new Zero()]);
    const a = nd.zeros([2]);
    expect(() => m.init('fc_weight', a)).toThrow(/fc_weight did not match any pattern/);
    a.dispose();
    expect(() => new Mixed(['a'], [])).toThrow(/same length/);
    expect(() => new Mixed(['('], [new Zero()])).toThrow(/not a valid regular expression/);
    expect(() => new Mixed(['a'], ['zeros' as unknown as Initializer])).toThrow(/not an Initializer/);
  });
});

describe('dumps and create', () => {
  it('dumps gives Python json.dumps strings, and create(dumps) round-trips', () => {
    for (const g of golden.dumps) {
      const made = create(g.name, g.kwargs);
      expect(made.dumps()).toBe(g.json);
      const again = create(made.dumps());
      expect(again.dumps()).toBe(g.json);
      expect(again.equals(made)).toBe(true);
      expect(again.constructor).toBe(made.constructor);
    }
  });

  it("constructors write MXNet's kwargs", () => {
    expect(new Normal(0.5).dumps()).toBe('["normal", {"sigma": 0.5}]');
    expect(new Xavier({ factorType: 'in', magnitude: 2.34 }).dumps()).toBe(
      '["xavier", {"rnd_type": "uniform", "factor_type": "in", "magnitude": 2.34}]',
    );
    expect(new MSRAPrelu().dumps()).toBe('["msraprelu", {"factor_type": "avg", "slope": 0.25}]');
    expect(new Orthogonal().dumps()).toBe('["orthogonal", {"scale": 1.414, "rand_type": "uniform"}]');
    const c = nd.array([
      [1, 2],
      [3, 4],
    ]);
    expect(new Constant(c).dumps()).toBe('["constant", {"value": [[1, 2], [3, 4]]}]');
    c.dispose();
    expect(new Xavier().equals(new Xavier({ magnitude: 3 }))).toBe(true);
    expect(new Xavier().equals(new Xavier({ magnitude: 2 }))).toBe(false);
    expect(new Zero().equals(new One())).toBe(false);
  });

  it("knows MXNet's names and aliases, case-insensitively", () => {
    const names: [string, new (...a: never[]) => Initializer][] = [
      ['uniform', Uniform],
      ['Normal', Normal],
      ['XAVIER', Xavier],
      ['msraprelu', MSRAPrelu],
      ['zeros', Zero],
      ['zero', Zero],
      ['ones', One],
      ['one', One],
      ['orthogonal', Orthogonal],
      ['bilinear', Bilinear],
      ['lstmbias', LSTMBias],
    ];
    for (const [n, cls] of names) expect(create(n)).toBeInstanceOf(cls);
    expect((create('constant', { value: 2 }) as Constant).value).toBe(2);
    expect(createInitializerRegistry().names()).toContain('mixed');
  });

  it('accepts pairs, configs, camelCase options and instances', () => {
    expect((create(['xavier', { rnd_type: 'gaussian' }]) as Xavier).rndType).toBe('gaussian');
    expect((create('xavier', { rndType: 'gaussian', factorType: 'out' }) as Xavier).factorType).toBe('out');
    expect((create({ initializer: 'normal', sigma: 0.2 }) as Normal).sigma).toBe(0.2);
    expect((create('{"initializer": "uniform", "scale": 0.3}') as Uniform).scale).toBe(0.3);
    const x = new Xavier();
    expect(create(x)).toBe(x);
  });

  it('round-trips Mixed with its children', async () => {
    const m = new Mixed(['.*bias', '.*'], [new Zero(), new Normal(0.5)]);
    const json = m.dumps();
    expect(json).toBe(
      '["mixed", {"patterns": [".*bias", ".*"], "initializers": [["zero", {}], ["normal", {"sigma": 0.5}]]}]',
    );
    const back = create(json) as Mixed;
    expect(back.dumps()).toBe(json);
    expect(await fill(back, 'fc_bias', [2])).toEqual([0, 0]);
  });

  it('lets a program register its own initializer without touching the defaults', async () => {
    class Halves extends Initializer {
      readonly registeredName = 'halves';
      protected initWeight(_name: string, arr: NDArray): void {
        arr.set(0.5);
      }
    }
    const registry = createInitializerRegistry().register('halves', () => new Halves(), ['half']);
    expect(registry.create('HALF')).toBeInstanceOf(Halves);
    expect(() => create('halves')).toThrow(/not registered/);
    const desc = new InitDesc('fc_bias', { attrs: { __init__: 'halves' }, registry });
    expect(await fill(new Zero(), desc, [2])).toEqual([0.5, 0.5]);
    expect(new Halves().dumps()).toBe('["halves", {}]');
  });

  it('refuses unknown names, unknown or bad options and bad JSON', () => {
    expect(() => create('glorot')).toThrow(/initializer 'glorot' is not registered/);
    expect(() => create('xavier', { rnd: 'uniform' })).toThrow(/unexpected argument 'rnd'/);
    expect(() => create('zeros', { value: 1 })).toThrow(/unexpected argument 'value'/);
    expect(() => create(new Zero(), { a: 1 })).toThrow(/already an instance/);
    expect(() => create('["xavier", ')).toThrow(/invalid initializer JSON/);
    expect(() => create({ sigma: 1 })).toThrow(/needs an 'initializer' name/);
    expect(() => new Xavier({ rndType: 'normal' as 'gaussian' })).toThrow(
      /rndType must be one of 'uniform', 'gaussian'/,
    );
    expect(() => new Xavier({ factorType: 'fan' as 'in' })).toThrow(/factorType must be one of/);
    expect(() => new Xavier({ magnitude: -1 })).toThrow(/magnitude must be a number > 0/);
    expect(() => new Normal(0)).toThrow(/sigma must be a number > 0/);
    expect(() => new Uniform(-0.1)).toThrow(/scale must be a number >= 0/);
    expect(() => new Orthogonal({ randType: 'gauss' as 'normal' })).toThrow(/randType must be one of/);
    expect(() => new LSTMBias(Number.NaN)).toThrow(/forgetBias must be a finite number/);
    expect(() => new MSRAPrelu({ slope: Number.POSITIVE_INFINITY })).toThrow(/slope/);
  });

  it('writes and reads Python JSON (NaN, Infinity, non-ASCII)', () => {
    expect(pythonJson(['a', { x: Number.NaN, y: [1, Number.NEGATIVE_INFINITY], z: 'é' }])).toBe(
      '["a", {"x": NaN, "y": [1, -Infinity], "z": "\\u00e9"}]',
    );
    expect(parsePythonJson('["a", {"x": NaN, "y": [1, -Infinity], "s": "NaN"}]')).toEqual([
      'a',
      { x: Number.NaN, y: [1, Number.NEGATIVE_INFINITY], s: 'NaN' },
    ]);
  });
});
