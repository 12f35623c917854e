/**
 * Benchmark 1: one SGD training step — forward, backward, `sgd_update` into each weight (out=
 * weight), loss read back — of train.ts's MLP and LeNet, through the graph layer (Executor from
 * `simpleBind` with fusion on and off, with train.ts's exact loss and with MXNet's SoftmaxOutput
 * head; CachedOp when the package has one) against the eager autograd step (train.ts's code,
 * re-measured here) and tfjs-wasm's step, all in this process. Every variant starts from the same
 * drawn values, and the first-step losses are checked against the eager one before timing.
 */
import type { Samples } from '@mx/bench-kit';
import { fmt, timeInterleaved, type Variant, want } from '@mx/bench-kit';
import type { NDArray, Nd, Runtime } from '@mx/ndarray';
import type { TfjsWasmReport as Report } from '@mx/peers';
import * as peers from '@mx/peers';
import type { Executor, Symbol as MxSymbol, SymbolApi } from '@mx/symbol';
import { cachedOpStep, graphStats } from './graph-api.js';
import {
  drawInit,
  eagerLogits,
  eagerLoss,
  hostCE,
  type LossKind,
  NETS,
  type NetInit,
  type NetName,
  netSymbol,
} from './nets.js';
import { profileRuns, profiling } from './profile.js';

const LR = 0.01;

/** A step variant; `run` returns the loss it read back. */
interface Step extends Variant {
  readonly run: () => number;
  readonly stats?: Record<string, number>;
}

/** train.ts's eager step: record, backward, sgd_update each parameter, read the loss. */
function eagerStep(rt: Runtime, net: NetName, init: NetInit): Step {
  const { nd, autograd } = rt;
  const p: Record<string, NDArray> = {};
  for (const [k, v] of Object.entries(init.params)) {
    const w = v.copy();
    w.attachGrad();
    p[k] = w;
  }
  const x = init.data.copy();
  const y = init.label.copy();
  return {
    run: () =>
      nd.scopeSync(() => {
        const loss = autograd.record(() => eagerLoss(nd, eagerLogits(nd, net, p, x), y));
        loss.backward();
        for (const w of Object.values(p)) nd.sgd_update(w, w.grad as NDArray, { lr: LR, out: w });
        return (loss.dataSync() as Float32Array)[0] as number;
      }),
    dispose: () => {
      for (const a of [...Object.values(p), x, y]) a.dispose();
    },
  };
}

interface BindChoice {
  readonly loss: LossKind;
  readonly fusion?: boolean;
  readonly bulkSize?: number;
}

/** Bind the network for training (gradients for the parameters only) and load the initial values. */
function bindTraining(sym: SymbolApi, net: NetName, init: NetInit, choice: BindChoice): Executor {
  const spec = NETS[net];
  const symbol: MxSymbol = netSymbol(sym, net, choice.loss);
  const gradReq = Object.fromEntries(Object.keys(spec.params).map((k) => [k, 'write' as const]));
  const ex = symbol.simpleBind({
    shapes: { data: spec.dataShape, label: [spec.batch] },
    gradReq,
    fusion: choice.fusion,
    bulkSize: choice.bulkSize,
  });
  ex.copyParamsFrom({ ...init.params, data: init.data, label: init.label });
  return ex;
}

/** The executor's step: forward, backward, sgd_update each weight in place, read the loss. */
function executorStep(nd: Nd, ex: Executor, net: NetName, loss: LossKind): Step {
  const pairs = Object.entries(ex.gradDict).map(([k, g]) => [ex.argDict[k] as NDArray, g] as const);
  const out = ex.outputs[0] as NDArray;
  const batch = NETS[net].batch;
  return {
    run: () =>
      nd.scopeSync(() => {
        ex.forward({ isTrain: true });
        ex.backward();
        for (const [w, g] of pairs) nd.sgd_update(w, g, { lr: LR, out: w });
        const v = out.dataSync() as Float32Array;
        return loss === 'ce' ? (v[0] as number) : hostCE(v, batch);
      }),
    dispose: () => ex.dispose(),
    stats: graphStats(ex),
  };
}

interface Ready {
  readonly label: string;
  readonly step: Step;
  readonly firstLoss: number;
}

const firstLine = (e: unknown): string => String(e).split('\n')[0] as string;

/** Make a variant and run its first step (the loss at the initial values); a string says why not. */
function prepare(label: string, make: () => Step | string): Ready | string {
  let v: Step | string;
  try {
    v = make();
  } catch (e) {
    return firstLine(e);
  }
  if (typeof v === 'string') return v;
  try {
    return { label, step: v, firstLoss: v.run() };
  } catch (e) {
    v.dispose();
    return firstLine(e);
  }
}

/** A variant for timing: each run checks that the loss stays finite. */
const timed = (r: Ready): Variant => ({
  run: () => {
    const l = r.step.run();
    if (!Number.isFinite(l)) throw new Error(`${r.label}: loss is ${l}`);
  },
  dispose: r.step.dispose,
});

const PEERS: Record<NetName, (tf: peers.Tfjs) => peers.Workload> = {
  mlp: peers.mlpTrainStep,
  lenet: peers.lenetTrainStep,
};
const NAMES: Record<NetName, string> = { mlp: 'mlp_784_512_512_10.b128', lenet: 'lenet5.b64' };
const TRAIN_PARAMS = { dtype: 'float32', optimizer: 'sgd_update (out = weight)' };
const CE = 'log_softmax + pick + mean (train.ts)';
const SOFTMAX_OUTPUT =
  "SoftmaxOutput(normalization='batch'): the mean softmax-CE gradient; loss from the read-back probabilities";

/** Per-op breakdown of the eager and graph steps (MX_BENCH_PROFILE=1). */
function profileNet(rt: Runtime, sym: SymbolApi, net: NetName, init: NetInit): void {
  const e = eagerStep(rt, net, init);
  e.run();
  profileRuns(rt, `${net} eager`, e.run);
  e.dispose();
  for (const fusion of [true, false]) {
    const ex = bindTraining(sym, net, init, { loss: 'ce', fusion, bulkSize: 1 });
    const g = executorStep(rt.nd, ex, net, 'ce');
    g.run();
    profileRuns(rt, `${net} executor (fusion ${fusion ? 'on' : 'off'}, bulkSize 1)`, g.run);
    g.dispose();
  }
  const c = cachedOpStep(rt, netSymbol(sym, net, 'ce'), init, LR, { staticAlloc: true, bulkSize: 1 });
  c.run();
  profileRuns(rt, `${net} CachedOp (static_alloc, bulkSize 1)`, c.run);
  c.dispose();
}

export async function trainBench(rt: Runtime, sym: SymbolApi, report: Report): Promise<void> {
  const { nd } = rt;
  for (const net of ['mlp', 'lenet'] as const) {
    if (!want(net)) continue;
    const init = drawInit(nd, NETS[net]);
    const eager = prepare('eager', () => eagerStep(rt, net, init));
    if (typeof eager === 'string') throw new Error(`eager ${net} step failed: ${eager}`);
    const variants: [string, string, () => Step | string][] = [
      ['executor', CE, () => executorStep(nd, bindTraining(sym, net, init, { loss: 'ce' }), net, 'ce')],
      [
        'executor.nofuse',
        CE,
        () => executorStep(nd, bindTraining(sym, net, init, { loss: 'ce', fusion: false }), net, 'ce'),
      ],
      [
        'executor.softmax_output',
        SOFTMAX_OUTPUT,
        () =>
          executorStep(nd, bindTraining(sym, net, init, { loss: 'softmax-output' }), net, 'softmax-output'),
      ],
      ['cachedop', CE, () => cachedOpStep(rt, netSymbol(sym, net, 'ce'), init, LR, { staticAlloc: false })],
      [
        'cachedop.static',
        CE,
        () => cachedOpStep(rt, netSymbol(sym, net, 'ce'), init, LR, { staticAlloc: true }),
      ],
    ];
    const graphs = variants.map(([label, loss, make]) => [label, loss, prepare(label, make)] as const);
    const ready = [eager, ...graphs.flatMap(([, , r]) => (typeof r === 'string' ? [] : [r]))];
    let samples: Samples[];
    try {
      samples = await timeInterleaved(ready.map(timed), { budgetMs: 8000 });
    } finally {
      for (const r of ready) r.step.dispose();
    }
    const samplesOf = (r: Ready) => samples[ready.indexOf(r)] as Samples;

    const peer = await report.timePeer(PEERS[net], { budgetMs: 3000 });
    const peerMs = 'medianMs' in peer ? peer.medianMs : undefined;
    const peerNote = 'skipped' in peer ? peer.skipped : undefined;
    const eagerMs = samplesOf(eager).medianMs;
    report.add(
      `train_step.${NAMES[net]}.eager`,
      { ...TRAIN_PARAMS, loss: CE },
      samplesOf(eager),
      {
        rate: { value: eagerMs, unit: 'ms' },
        extra: {
          tfjsWasmMs: peerMs ?? peerNote,
          tfjsWasmOverEager: peerMs === undefined ? undefined : peerMs / eagerMs,
          firstLoss: eager.firstLoss,
        },
      },
      `${fmt(eagerMs)} ms (autograd, train.ts's code); tfjs-wasm ${peerMs === undefined ? `skipped: ${peerNote}` : `${fmt(peerMs, 1)} ms`}`,
    );
    for (const [label, loss, g] of graphs) {
      const name = `train_step.${NAMES[net]}.${label}`;
      if (typeof g === 'string') {
        report.skip(name, g);
        continue;
      }
      const rel = Math.abs(g.firstLoss - eager.firstLoss) / Math.max(1e-6, Math.abs(eager.firstLoss));
      if (rel > 1e-4) {
        throw new Error(`${name}: first-step loss ${g.firstLoss}, the eager step's ${eager.firstLoss}`);
      }
      const gs = samplesOf(g);
      const ms = gs.medianMs;
      const ratio = ms / eagerMs;
      report.add(
        name,
        { ...TRAIN_PARAMS, loss },
        gs,
        {
          rate: { value: ms, unit: 'ms' },
          target: 'graph <= 0.8x eager',
          extra: {
            eagerMs,
            graphOverEager: ratio,
            tfjsWasmMs: peerMs ?? peerNote,
            tfjsWasmOverGraph: peerMs === undefined ? undefined : peerMs / ms,
            firstLoss: g.firstLoss,
            eagerFirstLoss: eager.firstLoss,
            ...g.step.stats,
            meetsTarget: ratio <= 0.8,
          },
        },
        `${fmt(ms)} ms = ${fmt(ratio)}x eager (${ratio <= 0.8 ? 'meets' : 'misses'} <= 0.8x)${peerMs === undefined ? '' : `; tfjs-wasm ${fmt(peerMs / ms, 1)}x slower`}`,
      );
    }
    if (profiling) profileNet(rt, sym, net, init);
    for (const a of [...Object.values(init.params), init.data, init.label]) a.dispose();
  }
}
