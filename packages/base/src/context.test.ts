import { describe, expect, it } from 'vitest';
import { Context, cpu, cpuPinned, cpuShared, DEVICE_TYPE_IDS, gpu } from './context.js';
import { MXNetError } from './error.js';

describe('Context', () => {
  it("uses MXNet's device type ids and spelling", () => {
    expect(DEVICE_TYPE_IDS).toEqual({ cpu: 1, gpu: 2, cpu_pinned: 3, cpu_shared: 5 });
    expect(cpu().toString()).toBe('cpu(0)');
    expect(gpu(1).toString()).toBe('gpu(1)');
    expect(cpuPinned(0).toString()).toBe('cpu_pinned(0)');
    expect(cpuShared(2).toString()).toBe('cpu_shared(2)');
    expect(gpu(1).deviceTypeId).toBe(2);
    expect(cpuShared().deviceTypeId).toBe(5);
    expect(JSON.stringify({ ctx: gpu(3) })).toBe('{"ctx":"gpu(3)"}');
  });

  it('interns contexts so === and Map keys work', () => {
    expect(cpu(0)).toBe(cpu());
    expect(Context.of('gpu', 2)).toBe(gpu(2));
    expect(Context.of(3, 1)).toBe(cpuPinned(1));
    expect(gpu(0)).not.toBe(cpu(0));
    expect(new Set([cpu(), cpu(0), gpu(0), gpu(1)]).size).toBe(3);
    expect(new Set([cpu(1), gpu(1), cpuPinned(1), cpuShared(1), cpu(2)].map((c) => c.key)).size).toBe(5);
  });

  it('parses its string form', () => {
    for (const c of [cpu(0), gpu(7), cpuPinned(3), cpuShared(0)])
      expect(Context.fromString(c.toString())).toBe(c);
    expect(Context.fromString(' gpu ( 2 ) ')).toBe(gpu(2));
  });

  it('rejects bad device types, ids and strings with MXNetError', () => {
    expect(() => Context.of('tpu' as never)).toThrow(MXNetError);
    expect(() => Context.of(4)).toThrow(/unknown device type 4/);
    expect(() => gpu(-1)).toThrow(/device id/);
    expect(() => gpu(1.5)).toThrow(/device id/);
    expect(() => cpu(70000)).toThrow(/device id/);
    expect(() => Context.fromString('cuda:0')).toThrow(/cannot parse context/);
  });

  it('reports whether the host can address the memory', () => {
    expect(cpu().isHost).toBe(true);
    expect(cpuPinned().isHost).toBe(true);
    expect(gpu().isHost).toBe(false);
  });
});
