/**
 * Benchmark 4: memory of the ResNet-50 training graph at batch 32, 3×224×224 (MXNet's
 * symbols/resnet.py network), planned but never run, through `planBind` — the pipeline simpleBind
 * runs before it allocates (forward + gradient pass, inference, fusion, PlanMemory): planned vs
 * naive (one buffer per entry) bytes in MiB with MXNet's defaults and with in-place sharing and
 * reuse turned off (MXNET_EXEC_ENABLE_INPLACE, NNVM_EXEC_MATCH_RANGE), fusion on and off. Before
 * that, planBind's figure is checked against a real executor's plannedBytes on train.ts's MLP.
 */
import { Env } from '@mx/base';
import { fmt, want } from '@mx/bench-kit';
import type { Runtime } from '@mx/ndarray';
import type { TfjsWasmReport as Report } from '@mx/peers';
import { planBind, type SymbolApi } from '@mx/symbol';
import { NETS, netSymbol } from './nets.js';
import { resnetSymbol } from './resnet.js';

const MiB = 2 ** 20;

/** The executor's own plan for the MLP against planBind's. */
function checkAgainstExecutor(rt: Runtime, sym: SymbolApi): { executor: number; planBind: number } {
  const symbol = netSymbol(sym, 'mlp', 'ce');
  const spec = NETS.mlp;
  const gradReq = Object.fromEntries(Object.keys(spec.params).map((k) => [k, 'write' as const]));
  const shapes = { data: spec.dataShape, label: [spec.batch] };
  const ex = symbol.simpleBind({ shapes, gradReq });
  const executor = ex.plannedBytes;
  ex.dispose();
  return { executor, planBind: planBind(rt.registry, symbol, { shapes, gradReq, env: rt.env }).plannedBytes };
}

export function memoryBench(rt: Runtime, sym: SymbolApi, report: Report): void {
  if (!want('resnet50')) return;
  const check = checkAgainstExecutor(rt, sym);
  const agrees = check.executor === check.planBind;
  console.log(
    `plan check (MLP b128 training graph): executor.plannedBytes ${check.executor}, planBind ${check.planBind} (${agrees ? 'equal' : 'DIFFERENT'})`,
  );

  const t0 = performance.now();
  const net = resnetSymbol(sym);
  const t1 = performance.now();
  const shapes = { data: [32, 3, 224, 224], softmax_label: [32] };
  const gradReq = Object.fromEntries(
    net.listArguments().map((a) => [a, a === 'data' || a === 'softmax_label' ? 'null' : 'write'] as const),
  );
  const variants = [
    ['default', {}, undefined],
    ['fusion_off', {}, false],
    ['inplace_off', { MXNET_EXEC_ENABLE_INPLACE: '0' }, undefined],
    ['reuse_off', { NNVM_EXEC_MATCH_RANGE: '0' }, undefined],
    ['inplace_and_reuse_off', { MXNET_EXEC_ENABLE_INPLACE: '0', NNVM_EXEC_MATCH_RANGE: '0' }, undefined],
  ] as const;
  const plans = variants.map(([label, vars, fusion]) => {
    const s = performance.now();
    const plan = planBind(rt.registry, net, {
      shapes,
      gradReq,
      env: new Env(vars),
      ...(fusion === undefined ? {} : { fusion }),
    });
    return { label, plan, ms: performance.now() - s };
  });
  const common = {
    network:
      'resnet.py ResNet-50 (units [3,4,6,3], filter_list [64,256,512,1024,2048], bottleneck, SoftmaxOutput)',
    batch: 32,
    image: [3, 224, 224],
    dtype: 'float32',
    gradients: 'every argument but data and softmax_label',
  };
  const base = (plans[0] as (typeof plans)[number]).plan;
  for (const { label, plan, ms } of plans) {
    const extra = {
      plannedMiB: plan.plannedBytes / MiB,
      naiveMiB: plan.naiveBytes / MiB,
      plannedOverNaive: plan.plannedBytes / plan.naiveBytes,
      plannedOverDefault: plan.plannedBytes / base.plannedBytes,
      nodes: plan.numNodes,
      opNodes: plan.numOps,
      fusedNodes: plan.fusedNodes,
      fusedOps: plan.fusedOps,
      argMiB: plan.argBytes / MiB,
      gradMiB: plan.gradBytes / MiB,
      auxMiB: plan.auxBytes / MiB,
      buildSymbolMs: t1 - t0,
      planBindMs: ms,
      executorPlanCheck: check,
    };
    report.addStatic(
      `memory.resnet50.b32.train.${label}`,
      common,
      extra,
      `planned ${fmt(extra.plannedMiB, 1)} MiB vs naive ${fmt(extra.naiveMiB, 1)} MiB (${fmt(100 * extra.plannedOverNaive, 1)}%); ${plan.numNodes} nodes (${plan.numOps} ops, ${plan.fusedNodes} fused from ${plan.fusedOps}); planBind ${fmt(ms, 0)} ms`,
    );
  }
  console.log(
    `memory.resnet50.b32: outside the plan: arguments ${fmt(base.argBytes / MiB, 1)} MiB, gradients ${fmt(base.gradBytes / MiB, 1)} MiB, aux ${fmt(base.auxBytes / MiB, 1)} MiB; build ${fmt(t1 - t0, 0)} ms`,
  );
}
