/**
 * The writer's layout, case by case, as dmlc-core's JSONWriter produces it (include/dmlc/json.h:
 * `ArrayHandler` one line up to 10 POD items, `MapHandler` one line for a single key, `", "` + newline
 * separators, only \r \n \\ \t " escaped) — on graphs built directly, not loaded.
 */
import { MXNetError } from '@mx/base';
import { createOpRegistry } from '@mx/ops';
import { describe, expect, it } from 'vitest';
import { Graph } from '../indexed.js';
import { entry, GraphNode, type NodeEntry } from '../node.js';
import { loadJSON, saveJSON } from './index.js';
import { compareUtf8 } from './save.js';

const registry = createOpRegistry();
const relu = (name: string, x: GraphNode, attrs: Record<string, string> = {}) =>
  GraphNode.create(registry.get('Activation'), name, { act_type: 'relu', ...attrs }, [entry(x)]);

describe('saveJSON layout', () => {
  it('writes a small graph exactly like MXNet 1.9.1', () => {
    const x = GraphNode.variable('x');
    const g = new Graph([entry(relu('r', x))]);
    expect(saveJSON(g)).toBe(
      [
        '{',
        '  "nodes": [',
        '    {',
        '      "op": "null", ',
        '      "name": "x", ',
        '      "inputs": []',
        '    }, ',
        '    {',
        '      "op": "Activation", ',
        '      "name": "r", ',
        '      "attrs": {"act_type": "relu"}, ',
        '      "inputs": [[0, 0, 0]]',
        '    }',
        '  ], ',
        '  "arg_nodes": [0], ',
        '  "node_row_ptr": [0, 1, 2], ',
        '  "heads": [[1, 0, 0]], ',
        '  "attrs": {"mxnet_version": ["int", 10901]}',
        '}',
      ].join('\n'),
    );
  });

  it('puts arrays of more than 10 items and maps of more than one key on several lines', () => {
    const vars = Array.from({ length: 11 }, (_, i) =>
      GraphNode.variable(`v${i}`, i === 0 ? { b: '2', a: '1' } : {}),
    );
    const cat = GraphNode.create(
      registry.get('Concat'),
      'cat',
      { num_args: '11' },
      vars.map((v) => entry(v)),
    );
    const text = saveJSON(new Graph([entry(cat)]), { mxnetVersion: 10200, isNpShape: true });
    expect(text).toContain(
      ['      "attrs": {', '        "a": "1", ', '        "b": "2"', '      }, '].join('\n'),
    );
    expect(text).toContain(
      ['      "inputs": [', '        [0, 0, 0], ', '        [1, 0, 0], '].join('\n') +
        '\n        [2, 0, 0], \n        [3, 0, 0], \n        [4, 0, 0], \n        [5, 0, 0], \n        [6, 0, 0], ' +
        '\n        [7, 0, 0], \n        [8, 0, 0], \n        [9, 0, 0], \n        [10, 0, 0]\n      ]\n    }',
    );
    expect(text).toContain('"arg_nodes": [\n    0, \n    1, ');
    expect(text).toContain('    10\n  ], \n  "node_row_ptr": [\n    0, ');
    // Two graph attributes: libstdc++'s unordered_map gives is_np_shape first.
    expect(
      text.endsWith(
        '  "attrs": {\n    "is_np_shape": ["int", 1], \n    "mxnet_version": ["int", 10200]\n  }\n}',
      ),
    ).toBe(true);
  });

  it('escapes only \\r \\n \\\\ \\t and " in strings and reads back everything it writes', () => {
    const name = 'a"b\\c\nd\re\tf\u0001g\u007fé😀';
    const x = GraphNode.variable(name, { 'k"ey': 'v\u0002' });
    const text = saveJSON(new Graph([entry(x)]));
    expect(text).toContain('"name": "a\\"b\\\\c\\nd\\re\\tf\u0001g\u007fé😀"');
    expect(text).toContain('"attrs": {"k\\"ey": "v\u0002"}');
    const back = loadJSON(text, registry).graph.outputs[0]?.node;
    expect(back?.name).toBe(name);
    expect(back?.attrs).toEqual({ 'k"ey': 'v\u0002' });
  });

  it('sorts attribute keys in UTF-8 byte order (std::map<std::string>)', () => {
    expect(['b', '_x', 'Z', 'a', '\uffff', '😀', 'aa', 'é'].sort(compareUtf8)).toEqual([
      'Z',
      '_x',
      'a',
      'aa',
      'b',
      'é',
      '\uffff',
      '😀',
    ]);
    const x = GraphNode.variable('x', { '😀': '1', '\uffff': '2', __shape__: '(1,)' });
    const text = saveJSON(new Graph([entry(x)]));
    expect(text.indexOf('"__shape__"')).toBeLessThan(text.indexOf('"\uffff"'));
    expect(text.indexOf('"\uffff"')).toBeLessThan(text.indexOf('"😀"'));
  });

  it('writes the canonical op name, every output entry and the variables as arg_nodes', () => {
    const x = GraphNode.variable('x');
    const drop = GraphNode.create(registry.get('Dropout'), 'drop', { p: '0.5' }, [entry(x)]);
    const text = saveJSON(new Graph([entry(drop, 0), entry(drop, 1)]));
    const json = JSON.parse(text);
    expect(json.node_row_ptr).toEqual([0, 1, 1 + drop.numOutputs()]);
    expect(json.heads).toEqual([
      [1, 0, 0],
      [1, 1, 0],
    ]);
    expect(text).toContain('"heads": [[1, 0, 0], [1, 1, 0]]');
  });

  it('writes an empty graph with empty arrays on one line', () => {
    expect(saveJSON(new Graph([]))).toBe(
      '{\n  "nodes": [], \n  "arg_nodes": [], \n  "node_row_ptr": [0], \n  "heads": [], \n  "attrs": {"mxnet_version": ["int", 10901]}\n}',
    );
  });

  it('writes control_deps after inputs', () => {
    const x = GraphNode.variable('x');
    const a = relu('a', x);
    const b = GraphNode.create(registry.get('Activation'), 'b', { act_type: 'relu' }, [entry(x)], [a]);
    expect(saveJSON(new Graph([entry(b)]))).toContain(
      '"inputs": [[0, 0, 0]], \n      "control_deps": [1]\n    }',
    );
  });
});

describe('saveJSON errors', () => {
  it('rejects a version that is not a 32-bit integer', () => {
    const g = new Graph([entry(GraphNode.variable('x'))]);
    expect(() => saveJSON(g, { mxnetVersion: 1.5 })).toThrow(MXNetError);
    expect(() => saveJSON(g, { mxnetVersion: 2 ** 40 })).toThrow(/32-bit/);
  });

  it('rejects a graph with a cycle or a missing output', () => {
    const x = GraphNode.variable('x');
    const a = relu('a', x);
    (a.inputs as NodeEntry[])[0] = entry(a);
    expect(() => saveJSON(new Graph([entry(a)]))).toThrow(/cycle/);
    expect(() => saveJSON(new Graph([entry(relu('r', x), 3)]))).toThrow(MXNetError);
  });
});
