/**
 * SymbolApi: construction, one function per registered op name, naming (MXNet's NameManager and
 * Prefix), attribute scopes (MXNet's test_attr.py cases), `var` options and the creation helpers.
 * Expected names and attribute texts are MXNet's, written out by hand from MXNet's sources/tests.
 */
import { MXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime } from '@mx/ndarray';
import { createOpRegistry } from '@mx/ops';
import { describe, expect, it } from 'vitest';
// biome-ignore lint/suspicious/noShadowRestrictedNames: MXNet's class name (mx.sym.Symbol)
import { AttrScope, NameManager, type Symbol, SymbolApi } from './index.js';
import { API_MEMBERS } from './reserved.js';

const registry = createOpRegistry();
const api = (warn: (m: string) => void = () => {}) => new SymbolApi(registry, { warn });

/** True when every key of `x` is in `y` with the same value (MXNet test_attr.py `contain`). */
function contains(x: Record<string, unknown>, y: Record<string, unknown>): boolean {
  return Object.entries(x).every(([k, v]) =>
    typeof v === 'object' && v !== null
      ? typeof y[k] === 'object' && contains(v as Record<string, unknown>, y[k] as Record<string, unknown>)
      : y[k] === v,
  );
}

describe('SymbolApi construction', () => {
  it('takes a Runtime (keeping it for binding) or an OpRegistry', () => {
    const rt = createRuntime({ backends: [new CpuWasmBackend()] });
    try {
      const fromRt = new SymbolApi(rt);
      expect(fromRt.runtime).toBe(rt);
      expect(fromRt.registry).toBe(rt.registry);
      const fromReg = new SymbolApi(registry);
      expect(fromReg.runtime).toBeUndefined();
      expect(fromReg.registry).toBe(registry);
      expect(() => new SymbolApi({} as never)).toThrow(MXNetError);
      expect(() => new SymbolApi(null as never)).toThrow(/Runtime or an OpRegistry/);
    } finally {
      rt.dispose();
    }
  });

  it('has a function for every registered op name and alias, not enumerable', () => {
    const sym = api();
    const members = sym as unknown as Record<string, unknown>;
    for (const name of registry.names()) {
      if (API_MEMBERS.has(name)) continue;
      expect(typeof members[name], name).toBe('function');
    }
    expect(Object.keys(sym)).not.toContain('FullyConnected');
    // The API's own members are not replaced by ops.
    expect(sym.var).toBe(SymbolApi.prototype.var);
  });

  it('reaches ops by name with invoke, and names the closest ones for a misspelt op', () => {
    const sym = api();
    const x = sym.var('x');
    expect(sym.invoke('relu', x).attr('op_name')).toBe('relu');
    expect(() => sym.invoke('FullyConected', x)).toThrow(
      /FullyConected is not registered[\s\S]*did you mean FullyConnected/,
    );
  });
});

describe('naming (MXNet NameManager / Prefix)', () => {
  it('names ops <lower-cased name><n> with a counter per name, per SymbolApi', () => {
    const sym = api();
    const data = sym.var('data');
    expect(sym.FullyConnected(data, { num_hidden: 2 }).name).toBe('fullyconnected0');
    expect(sym.FullyConnected(data, { num_hidden: 2 }).name).toBe('fullyconnected1');
    expect(sym.Activation(data, { act_type: 'relu' }).name).toBe('activation0');
    // The hint is the name called: Concat and concat share `concat`; split is its own.
    expect(sym.Concat(data, data).name).toBe('concat0');
    expect(sym.concat(data, data).name).toBe('concat1');
    expect(sym.split(data, { num_outputs: 1 }).name).toBe('split0');
    expect(sym.SliceChannel(data, { num_outputs: 1 }).name).toBe('slicechannel0');
    // Another API has its own counters.
    expect(api().FullyConnected(data, { num_hidden: 2 }).name).toBe('fullyconnected0');
    // A given name is used as is and does not advance the counter.
    expect(sym.FullyConnected(data, { num_hidden: 2, name: 'fc' }).name).toBe('fc');
    expect(sym.FullyConnected(data, { num_hidden: 2 }).name).toBe('fullyconnected2');
  });

  it('Prefix: a new manager prefixing given and generated op names, not variables', () => {
    const sym = api();
    const data = sym.var('data');
    sym.FullyConnected(data, { num_hidden: 2 }); // fullyconnected0 outside
    const [a, b, v] = sym.prefix('net1_', () => [
      sym.FullyConnected(data, { num_hidden: 2 }),
      sym.FullyConnected(data, { num_hidden: 2, name: 'fc' }),
      sym.var('x'),
    ]);
    expect(a?.name).toBe('net1_fullyconnected0');
    expect(b?.listArguments()).toEqual(['data', 'net1_fc_weight', 'net1_fc_bias']);
    expect(v?.name).toBe('x');
    // Outside again: the outer counters continue.
    expect(sym.FullyConnected(data, { num_hidden: 2 }).name).toBe('fullyconnected1');
    // Nested prefixes do not concatenate (each Prefix is a manager of its own).
    const inner = sym.prefix('a_', () => sym.prefix('b_', () => sym.relu(data)));
    expect(inner.name).toBe('b_relu0');
  });

  it('withNameManager starts fresh counters and restores the previous manager, also on errors', () => {
    const sym = api();
    const data = sym.var('data');
    sym.relu(data);
    const outer = sym.nameManager;
    expect(sym.withNameManager(new NameManager(), () => sym.relu(data).name)).toBe('relu0');
    expect(() =>
      sym.withNameManager(new NameManager(), () => {
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(sym.nameManager).toBe(outer);
    expect(sym.relu(data).name).toBe('relu1');
    expect(() => sym.withNameManager({} as NameManager, () => 0)).toThrow(/expects a NameManager/);
  });

  it('refuses async callbacks (a scope cannot follow an await)', () => {
    const sym = api();
    expect(() => sym.prefix('p_', async () => 1)).toThrow(/must be synchronous/);
    expect(() => sym.attrScope({ ctx_group: 'a' }, async () => 1)).toThrow(/must be synchronous/);
    expect(sym.currentAttrScope.attrs).toEqual({});
  });
});

describe('attribute scopes (MXNet test_attr.py)', () => {
  it('test_attr_basic: scope attributes on variables, hidden keys, attr() without underscores', () => {
    const sym = api();
    const [data, gdata] = sym.attrScope({ group: '4', data: 'great' }, () => [
      sym.Variable('data', { attr: { dtype: 'data', group: '1', force_mirroring: 'True' }, lrMult: 1 }),
      sym.Variable('data2'),
    ]) as [Symbol, Symbol];
    expect(gdata.attr('group')).toBe('4');
    expect(data.attr('group')).toBe('1');
    expect(data.attr('lr_mult')).toBe('1');
    expect(data.attr('__lr_mult__')).toBe('1');
    expect(data.attr('force_mirroring')).toBe('True');
    expect(data.attr('__force_mirroring__')).toBe('True');
    expect(data.listAttr()).toEqual({
      data: 'great',
      dtype: 'data',
      group: '1',
      __force_mirroring__: 'True',
      force_mirroring: 'True',
      __lr_mult__: '1',
      lr_mult: '1',
    });
    const data2 = sym.fromJSON(data.toJSON());
    expect(data2.attr('dtype')).toBe(data.attr('dtype'));
  });

  it('test_operator: nested scopes on op nodes; the JSON round trip keeps them', () => {
    const sym = api();
    const data = sym.var('data');
    let fc2: Symbol | undefined;
    const fc1 = sym.attrScope({ __group__: '4', __data__: 'great' }, () => {
      const f = sym.Activation(data, { act_type: 'relu' });
      fc2 = sym.attrScope({ __init_bias__: '0.0' }, () =>
        sym.FullyConnected(f, { num_hidden: 10, name: 'fc2' }),
      );
      return f;
    });
    expect(fc1.attr('__data__')).toBe('great');
    expect(fc2?.attr('__data__')).toBe('great');
    expect(fc2?.attr('__init_bias__')).toBe('0.0');
    const copy = sym.fromJSON(fc2?.toJSON() ?? '');
    expect(copy.toJSON()).toBe(fc2?.toJSON());
    expect(fc2?.getInternals().get('fc2_weight').attr('__data__')).toBe('great');
    expect(sym.currentAttrScope.attrs).toEqual({});
  });

  it('test_list_attr: the op `attr` option, hidden keys listed with and without underscores', () => {
    const sym = api();
    const data = sym.var('data', { attr: { mood: 'angry' } });
    const op = sym.Convolution({
      data,
      name: 'conv',
      kernel: [1, 1],
      num_filter: 1,
      attr: { __mood__: 'so so', wd_mult: 'x' },
    });
    expect(contains({ __mood__: 'so so', wd_mult: 'x', __wd_mult__: 'x' }, op.listAttr())).toBe(true);
  });

  it('test_attr_dict: attributes of every node; created variables copy the node attributes', () => {
    const sym = api();
    const data = sym.var('data', { attr: { mood: 'angry' } });
    const op = sym.Convolution({
      data,
      name: 'conv',
      kernel: [1, 1],
      num_filter: 1,
      attr: { __mood__: 'so so' },
      lr_mult: 1,
    });
    const expected = {
      data: { mood: 'angry' },
      conv_weight: { __mood__: 'so so' },
      conv: { kernel: '(1, 1)', __mood__: 'so so', num_filter: '1', lr_mult: '1', __lr_mult__: '1' },
      conv_bias: { __mood__: 'so so' },
    };
    expect(contains(expected, op.attrDict())).toBe(true);
    expect(contains({ conv: { kernel: '(1, 1)', num_filter: '2' } }, op.attrDict())).toBe(false);
  });

  it('AttrScope values must be strings; the call attr wins over the scope', () => {
    expect(() => new AttrScope({ lr_mult: 0.1 as unknown as string })).toThrow(/only accepts string values/);
    const scope = new AttrScope({ a: '1', b: '2' });
    expect(scope.get({ b: '3' })).toEqual({ a: '1', b: '3' });
    expect(new AttrScope({ b: '9' }).within(scope).attrs).toEqual({ a: '1', b: '9' });
    const sym = api();
    const x = sym.withAttrScope(scope, () => sym.var('x', { attr: { a: 'mine' } }));
    expect(x.listAttr()).toEqual({ a: 'mine', b: '2' });
    expect(() => sym.withAttrScope({} as AttrScope, () => 0)).toThrow(/expects an AttrScope/);
  });

  it('ctx_group and lr_mult in a scope land on ops and on the variables they create', () => {
    const sym = api();
    const net = sym.attrScope({ ctx_group: 'dev1', lr_mult: '0.1' }, () =>
      sym.FullyConnected(sym.var('data'), { num_hidden: 4, name: 'fc' }),
    );
    expect(net.attrDict()).toEqual({
      data: { __ctx_group__: 'dev1', ctx_group: 'dev1', __lr_mult__: '0.1', lr_mult: '0.1' },
      fc_weight: {
        __ctx_group__: 'dev1',
        ctx_group: 'dev1',
        __lr_mult__: '0.1',
        lr_mult: '0.1',
        num_hidden: '4',
      },
      fc_bias: {
        __ctx_group__: 'dev1',
        ctx_group: 'dev1',
        __lr_mult__: '0.1',
        lr_mult: '0.1',
        num_hidden: '4',
      },
      fc: { __ctx_group__: 'dev1', ctx_group: 'dev1', __lr_mult__: '0.1', lr_mult: '0.1', num_hidden: '4' },
    });
  });
});

describe('var', () => {
  it('stores MXNet hidden attributes as MXNet writes them', () => {
    const sym = api();
    const w = sym.var('w', {
      shape: [2, 3],
      dtype: 'float16',
      lrMult: 0.5,
      wdMult: 0,
      init: '["zero", {}]',
      stype: 'csr',
      attr: { ctx_group: 'dev2', note: 'x' },
    });
    expect(w.listAttr()).toEqual({
      __shape__: '(2, 3)',
      __dtype__: '2',
      __lr_mult__: '0.5',
      lr_mult: '0.5',
      __wd_mult__: '0',
      wd_mult: '0',
      __init__: '["zero", {}]',
      __storage_type__: '2',
      __ctx_group__: 'dev2',
      ctx_group: 'dev2',
      note: 'x',
    });
    expect(sym.var('b', { shape: [5] }).attr('__shape__')).toBe('(5,)');
    // MXNet's dtype flags: float32 0, float64 1, uint8 3, int32 4, int64 6.
    for (const [d, flag] of [
      ['float32', '0'],
      ['float64', '1'],
      ['uint8', '3'],
      ['int32', '4'],
      ['int64', '6'],
    ]) {
      expect(sym.var('t', { dtype: d }).attr('__dtype__')).toBe(flag);
    }
    expect(sym.var('i', { init: { dumps: () => '["xavier", {}]' } }).attr('__init__')).toBe('["xavier", {}]');
    expect(sym.var('r', { stype: 'row_sparse' }).attr('__storage_type__')).toBe('1');
  });

  it('rejects bad names, shapes, dtypes, storage types and attribute values', () => {
    const sym = api();
    expect(() => sym.var(3 as unknown as string)).toThrow(/variable name must be a non-empty string/);
    expect(() => sym.var('')).toThrow(MXNetError);
    expect(() => sym.var('x', { shape: [2, 1.5] })).toThrow(/array of integers/);
    expect(() => sym.var('x', { dtype: 'float33' })).toThrow(/unknown dtype/);
    expect(() => sym.var('x', { stype: 'dense' as 'csr' })).toThrow(/unknown storage type/);
    expect(() => sym.var('x', { attr: { mood: 1 as unknown as string } })).toThrow(
      /only accepts string values/,
    );
    expect(() => sym.var('x', { attr: { weight_lr_mult: '1' } })).toThrow(/weight_lr_mult is deprecated/);
  });
});

describe('Group and the creation helpers', () => {
  it('Group concatenates outputs and rejects what is not a non-empty array of Symbols', () => {
    const sym = api();
    const a = sym.var('a');
    const s = sym.split(a, { num_outputs: 2, name: 's' });
    const g = sym.Group([a, s]);
    expect(g.listOutputs()).toEqual(['a', 's_output0', 's_output1']);
    expect(g.name).toBeUndefined();
    expect(() => sym.Group([])).toThrow(/non-empty array of Symbols/);
    expect(() => sym.Group([a, 1 as unknown as Symbol])).toThrow(MXNetError);
  });

  it('zeros / ones / full write MXNet Python attributes and infer their shape', () => {
    const sym = api();
    const z = sym.zeros([2, 3]);
    expect([z.name, z.attr('op_name'), z.attr('shape'), z.attr('dtype')]).toEqual([
      '_zeros0',
      '_zeros',
      '(2, 3)',
      'float32',
    ]);
    const o = sym.ones([4], { dtype: 'int32', name: 'one' });
    expect([o.name, o.attr('shape'), o.attr('dtype')]).toEqual(['one', '(4,)', 'int32']);
    const f = sym.full([2], 2);
    expect([f.name, f.attr('value')]).toEqual(['_full0', '2.0']);
    expect(z.add(sym.ones([2, 3])).inferShape().outShapes).toEqual([[2, 3]]);
    expect(f.inferShape().outShapes).toEqual([[2]]);
  });

  it('pow / maximum / minimum / hypot pick the op from the operand types; numbers give numbers', () => {
    const sym = api();
    const x = sym.var('x');
    const y = sym.var('y');
    expect(sym.pow(x, y).attr('op_name')).toBe('_power');
    expect(sym.pow(x, 2).attr('op_name')).toBe('_power_scalar');
    expect(sym.power(3, y).attr('op_name')).toBe('_rpower_scalar');
    expect(sym.pow(3, y).attr('scalar')).toBe('3');
    expect(sym.pow(2, 3)).toBe(8);
    expect(sym.maximum(x, 1).attr('op_name')).toBe('_maximum_scalar');
    expect(sym.maximum(1, 5)).toBe(5);
    expect(sym.minimum(x, y).attr('op_name')).toBe('_minimum');
    expect(sym.hypot(3, 4)).toBe(5);
    expect(() => sym.maximum(x, 'a' as unknown as number)).toThrow(/not supported/);
  });
});
