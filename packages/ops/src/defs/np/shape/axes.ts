/**
 * MXNet 2.0's np ops that only move axes or elements of one array and that legacy kernels already
 * compute: aliases of legacy ops under their np names (`_npi_swapaxes` = SwapAxis,
 * `_npi_expand_dims` = expand_dims, `_npi_tile` = tile, `_npi_repeat` = repeat), and thin new
 * definitions whose kernels are one legacy kernel with computed params — `_npi_moveaxis` /
 * `_npi_rollaxis` (transpose), `_npi_flip` (reverse), `_npi_broadcast_to` (broadcast_to with
 * NumPy's rules: new leading axes, zero-size targets), `_npi_squeeze` and `_npi_atleast_{1,2,3}d`
 * (copies; NumPy's shapes, no legacy "keep one axis" rule). So every one runs wherever the legacy
 * kernel does, WebGPU included.
 */
import { type Shape, shapeToString } from '@mx/base';
import type { OpDef } from '../../../op-def.js';
import { P } from '../../../params.js';
import type { OpRegistry } from '../../../registry.js';
import { argNames, assignShape, checkAxis, known, outputNames, shapeError } from '../../shape/common.js';
import { composite, reshaped } from './composite.js';

type A = Readonly<Record<string, unknown>>;

/** Register `name` as a copy of the legacy op `legacy` (MXNet registers it as an alias). */
function alias(registry: OpRegistry, legacy: string, name: string): void {
  const op = registry.get(legacy);
  registry.define({
    ...(op.def as OpDef),
    name,
    aliases: [],
    compositeKernel: composite<A>([legacy], (attrs, inputs, req, outputs) => [
      { kernel: legacy, attrs, inputs, req, outputs },
    ]),
  });
}

/** NumPy's `moveaxis` permutation: `source` axes moved to `destination`, the rest in order. */
export function moveaxisPerm(
  source: readonly number[],
  destination: readonly number[],
  ndim: number,
): number[] {
  const order = Array.from({ length: ndim }, (_, i) => i).filter((i) => !source.includes(i));
  const pairs = destination.map((d, i) => [d, source[i] as number] as const).sort((a, b) => a[0] - b[0]);
  for (const [d, s] of pairs) order.splice(d, 0, s);
  return order;
}

/** NumPy's `rollaxis` permutation (axis and start already checked and normalised). */
export function rollaxisPerm(axis: number, start: number, ndim: number): number[] {
  let st = start;
  if (axis < st) st -= 1;
  const order = Array.from({ length: ndim }, (_, i) => i).filter((i) => i !== axis);
  order.splice(st, 0, axis);
  return order;
}

/** Normalised axes of a tuple param, checked against `ndim` (distinct). */
function axesOf(
  op: string,
  list: readonly number[],
  ndim: number,
  attrs: A,
  inShapes: (Shape | undefined)[],
) {
  const out = list.map((a) => checkAxis(op, a, ndim, attrs, inShapes));
  if (new Set(out).size !== out.length) throw shapeError(op, 'repeated axis', attrs, inShapes);
  return out;
}

function inverse(perm: readonly number[]): number[] {
  const inv = new Array<number>(perm.length);
  perm.forEach((p, i) => {
    inv[p] = i;
  });
  return inv;
}

const RESHAPE_BACK = {
  inputs: [0] as const,
  build: <T>(g: { ograd(i: number): T; input(i: number): T; op1(n: string, i: T[], p?: A): T }) => [
    g.op1('reshape_like', [g.ograd(0), g.input(0)]),
  ],
};

/** `_npi_atleast_Nd`'s shape for one input. */
export function atleastShape(n: 1 | 2 | 3, s: Shape): number[] {
  if (s.length >= n) return [...s];
  if (n === 1) return [1];
  if (n === 2) return s.length === 0 ? [1, 1] : [1, ...s];
  return s.length === 0 ? [1, 1, 1] : s.length === 1 ? [1, s[0] as number, 1] : [...s, 1];
}

export function registerNpAxes(registry: OpRegistry): void {
  alias(registry, 'SwapAxis', '_npi_swapaxes');
  alias(registry, 'expand_dims', '_npi_expand_dims');
  alias(registry, 'tile', '_npi_tile');
  alias(registry, 'repeat', '_npi_repeat');

  const moveParams = {
    source: P.shape({ doc: 'Original position of the axes to move. These must be unique.' }),
    destination: P.shape({
      doc: 'Destination positions for each of the original axes. These must also be unique.',
    }),
  };
  const movePerm = (
    attrs: { source: readonly number[]; destination: readonly number[] },
    ndim: number,
    ins: (Shape | undefined)[] = [],
  ) => {
    if (attrs.source.length !== attrs.destination.length)
      throw shapeError(
        '_npi_moveaxis',
        '`source` and `destination` arguments must have the same number of elements',
        attrs,
        ins,
      );
    return moveaxisPerm(
      axesOf('_npi_moveaxis', attrs.source, ndim, attrs, ins),
      axesOf('_npi_moveaxis', attrs.destination, ndim, attrs, ins),
      ndim,
    );
  };
  registry.define({
    name: '_npi_moveaxis',
    doc: 'Moves axes of an array to new positions; the other axes keep their order (NumPy moveaxis).',
    params: moveParams,
    // The inverse move: destination back to source.
    gradient: {
      inputs: 'none',
      build: (g, a) => [
        g.op1('_npi_moveaxis', [g.ograd(0)], { source: a.destination, destination: a.source }),
      ],
    },
    inferShape(attrs, inShapes, outShapes) {
      const d = inShapes[0];
      if (!known(d)) return false;
      const perm = movePerm(attrs, d.length, inShapes);
      assignShape(
        '_npi_moveaxis',
        outShapes,
        0,
        perm.map((p) => d[p] as number),
        attrs,
      );
      return true;
    },
    compositeKernel: composite<{ source: readonly number[]; destination: readonly number[] }>(
      ['transpose'],
      (attrs, inputs, req, outputs) => [
        {
          kernel: 'transpose',
          attrs: { axes: movePerm(attrs, (inputs[0] as { shape: Shape }).shape.length) },
          inputs,
          req,
          outputs,
        },
      ],
    ),
  });

  const rollParams = {
    axis: P.int({ doc: 'The axis to be rolled.' }),
    start: P.int({ default: 0, doc: 'The axis is rolled until it lies before this position.' }),
  };
  const rollPerm = (
    attrs: { axis: number; start: number },
    ndim: number,
    ins: (Shape | undefined)[] = [],
  ) => {
    const axis = checkAxis('_npi_rollaxis', attrs.axis, ndim, attrs, ins);
    let start = attrs.start;
    if (start < 0) start += ndim;
    if (start < 0 || start > ndim)
      throw shapeError(
        '_npi_rollaxis',
        `'start' arg requires ${-ndim} <= start < ${ndim + 1}, but ${attrs.start} was passed in`,
        attrs,
        ins,
      );
    return rollaxisPerm(axis, start, ndim);
  };
  registry.define({
    name: '_npi_rollaxis',
    doc: 'Rolls the specified axis backwards until it lies before `start` (NumPy rollaxis).',
    params: rollParams,
    gradient: {
      inputs: 'none',
      build: (g, a) => [g.op1('_npi_rollaxis_backward', [g.ograd(0)], a)],
    },
    inferShape(attrs, inShapes, outShapes) {
      const d = inShapes[0];
      if (!known(d)) return false;
      assignShape(
        '_npi_rollaxis',
        outShapes,
        0,
        rollPerm(attrs, d.length, inShapes).map((p) => d[p] as number),
        attrs,
      );
      return true;
    },
    compositeKernel: composite<{ axis: number; start: number }>(
      ['transpose'],
      (attrs, inputs, req, outputs) => [
        {
          kernel: 'transpose',
          attrs: { axes: rollPerm(attrs, (inputs[0] as { shape: Shape }).shape.length) },
          inputs,
          req,
          outputs,
        },
      ],
    ),
  });
  registry.define({
    name: '_npi_rollaxis_backward',
    doc: 'Gradient of _npi_rollaxis: the inverse permutation of the rolled output.',
    params: rollParams,
    isBackward: true,
    gradient: { inputs: 'none', build: (g, a) => [g.op1('_npi_rollaxis', [g.ograd(0)], a)] },
    inferShape(attrs, inShapes, outShapes) {
      const d = inShapes[0];
      if (!known(d)) return false;
      const inv = inverse(rollPerm(attrs, d.length, inShapes));
      assignShape(
        '_npi_rollaxis_backward',
        outShapes,
        0,
        inv.map((p) => d[p] as number),
        attrs,
      );
      return true;
    },
    compositeKernel: composite<{ axis: number; start: number }>(
      ['transpose'],
      (attrs, inputs, req, outputs) => [
        {
          kernel: 'transpose',
          attrs: { axes: inverse(rollPerm(attrs, (inputs[0] as { shape: Shape }).shape.length)) },
          inputs,
          req,
          outputs,
        },
      ],
    ),
  });

  const flipAxes = (
    axis: readonly number[] | null,
    ndim: number,
    attrs: A = {},
    ins: (Shape | undefined)[] = [],
  ) =>
    axis === null
      ? Array.from({ length: ndim }, (_, i) => i)
      : axis.map((a) => checkAxis('_npi_flip', a, ndim, attrs, ins));
  registry.define({
    name: '_npi_flip',
    doc: 'Reverses the order of elements along the given axes (all axes when None); the shape is kept.',
    params: { axis: P.optional(P.tuple(P.int()), { doc: 'The axis which to flip elements (None: all).' }) },
    gradient: { inputs: 'none', build: (g, a) => [g.op1('_npi_flip', [g.ograd(0)], { axis: a.axis })] },
    inferShape(attrs, inShapes, outShapes) {
      const d = inShapes[0];
      if (!known(d)) return false;
      flipAxes(attrs.axis, d.length, attrs, inShapes);
      assignShape('_npi_flip', outShapes, 0, d, attrs);
      return true;
    },
    compositeKernel: composite<{ axis: readonly number[] | null }>(
      ['reverse'],
      (attrs, inputs, req, outputs) => [
        {
          kernel: 'reverse',
          attrs: { axis: flipAxes(attrs.axis, (inputs[0] as { shape: Shape }).shape.length) },
          inputs,
          req,
          outputs,
        },
      ],
    ),
  });

  registry.define({
    name: '_npi_broadcast_to',
    doc: "Broadcasts an array to a shape with NumPy's rules (new leading axes; size-1 axes stretch, also to 0).",
    params: {
      shape: P.shape({
        default: Object.freeze([]) as readonly number[],
        doc: 'The shape of the desired array.',
      }),
    },
    gradient: { inputs: [0], build: (g) => [g.op1('_broadcast_backward', [g.ograd(0), g.input(0)])] },
    inferShape(attrs, inShapes, outShapes) {
      const d = inShapes[0];
      if (!known(d)) return false;
      const t = attrs.shape;
      const pad = t.length - d.length;
      const ok = pad >= 0 && d.every((x, i) => x === t[i + pad] || x === 1) && t.every((x) => x >= 0);
      if (!ok)
        throw shapeError(
          '_npi_broadcast_to',
          `operands could not be broadcast together with remapped shapes [original->remapped]: ${shapeToString(d)} and requested shape ${shapeToString(t)}`,
          attrs,
          inShapes,
        );
      assignShape('_npi_broadcast_to', outShapes, 0, t, attrs);
      return true;
    },
    compositeKernel: composite<A>(['broadcast_to'], (_attrs, inputs, req, outputs) => {
      const x = inputs[0] as (typeof inputs)[0];
      const out = outputs[0] as (typeof outputs)[0];
      if (out.size === 0) return [];
      const view = [...new Array<number>(out.shape.length - x.shape.length).fill(1), ...x.shape];
      return [
        { kernel: 'broadcast_to', attrs: { shape: out.shape }, inputs: [reshaped(x, view)], req, outputs },
      ];
    }),
  });

  registry.define({
    name: '_npi_squeeze',
    doc: 'Removes axes of length one (all, or those in `axis`); a (1,) array becomes 0-d (NumPy squeeze).',
    params: {
      axis: P.optional(P.tuple(P.int()), { doc: 'The size-one axes to remove (None: all of them).' }),
    },
    gradient: RESHAPE_BACK,
    inferShape(attrs, inShapes, outShapes) {
      const d = inShapes[0];
      if (!known(d)) return false;
      const drop =
        attrs.axis === null
          ? d.map((x) => x === 1)
          : (() => {
              const m = new Array<boolean>(d.length).fill(false);
              for (const ax of axesOf('_npi_squeeze', attrs.axis, d.length, attrs, inShapes)) {
                if (d[ax] !== 1)
                  throw shapeError(
                    '_npi_squeeze',
                    'cannot select an axis to squeeze out which has size not equal to one',
                    attrs,
                    inShapes,
                  );
                m[ax] = true;
              }
              return m;
            })();
      assignShape(
        '_npi_squeeze',
        outShapes,
        0,
        d.filter((_, i) => !drop[i]),
        attrs,
      );
      return true;
    },
    compositeKernel: composite<A>(['_copy'], (_attrs, inputs, req, outputs) => [
      {
        kernel: '_copy',
        attrs: {},
        inputs: [reshaped(inputs[0] as (typeof inputs)[0], (outputs[0] as (typeof outputs)[0]).shape)],
        req,
        outputs,
      },
    ]),
  });

  for (const n of [1, 2, 3] as const) {
    const name = `_npi_atleast_${n}d`;
    registry.define({
      name,
      doc: `Views each input with at least ${n} dimension(s) (NumPy atleast_${n}d).`,
      params: { num_args: P.int({ lowerBound: 1, doc: 'Number of input arrays.' }) },
      numInputs: (a) => a.num_args,
      numOutputs: (a) => a.num_args,
      keyVarNumArgs: 'num_args',
      listInputNames: (a) => argNames(a.num_args),
      listOutputNames: (a) => outputNames(a.num_args),
      inferType(_attrs, inTypes, outTypes) {
        inTypes.forEach((t, i) => {
          if (t !== undefined) outTypes[i] = t;
          else if (outTypes[i] !== undefined) inTypes[i] = outTypes[i];
        });
        return inTypes.every((t) => t !== undefined);
      },
      gradient: {
        inputs: 'all',
        build: (g, a) =>
          Array.from({ length: a.num_args }, (_, i) => g.op1('reshape_like', [g.ograd(i), g.input(i)])),
      },
      inferShape(attrs, inShapes, outShapes) {
        if (!inShapes.every(known)) return false;
        inShapes.forEach((s, i) => {
          assignShape(name, outShapes, i, atleastShape(n, s as Shape), attrs);
        });
        return true;
      },
      compositeKernel: composite<A>(['_copy'], (_attrs, inputs, req, outputs) =>
        inputs.map((x, i) => {
          const o = outputs[i] as (typeof outputs)[0];
          return {
            kernel: '_copy',
            attrs: {},
            inputs: [reshaped(x, o.shape)],
            req: [req[i] as (typeof req)[0]],
            outputs: [o],
          };
        }),
      ),
    });
  }
}
