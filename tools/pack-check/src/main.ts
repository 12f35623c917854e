/**
 * CLI of the pack check (`pnpm --filter @mx/pack-check check`, after `pnpm build`): runs every step
 * and prints what the tarballs contain, each example's output per mode, the type-check profiles,
 * the changeset dry run and the time each step took. Exits 1 when any step found a problem.
 * `MX_PACK_CHECK_KEEP=1` keeps the scratch folder for a look.
 */
import { type ExampleRun, PackCheck } from './check.js';

const kib = (n: number): string => `${(n / 1024).toFixed(0)} KiB`;

function exampleLines(runs: readonly ExampleRun[]): string[] {
  return runs.map((r) => {
    const head = `  ${r.ok ? 'ok  ' : 'FAIL'} ${r.mode.padEnd(7)} ${r.example.id}${r.ms ? ` (${r.ms.toFixed(0)} ms)` : ''}`;
    const body = r.ok
      ? r.printed.map((l) => `         | ${l}`)
      : [
          `         expected: ${JSON.stringify(r.expected)}`,
          `         printed:  ${JSON.stringify(r.printed)}`,
          `         ${r.detail ?? ''}`,
        ];
    return [head, ...(r.ok && r.detail ? [`         (${r.detail})`] : []), ...body].join('\n');
  });
}

async function main(): Promise<number> {
  const t0 = performance.now();
  const check = new PackCheck();
  const problems: string[] = [];
  try {
    console.log(`scratch: ${check.scratch}`);
    problems.push(...check.manifests());

    const { problems: packProblems, tarballs } = await check.pack();
    problems.push(...packProblems);
    console.log('\ntarballs:');
    for (const t of tarballs) console.log(`  ${t.name} ${kib(t.bytes)}: ${t.files.join(' ')}`);

    problems.push(...(await check.install()));
    const examples = check.collectExamples();
    console.log(`\n${examples.length} README examples`);
    for (const ex of examples) {
      if (!('code' in ex.browser)) console.log(`  browser skips ${ex.id}: ${ex.browser.skip}`);
    }

    for (const mode of ['esm', 'cjs'] as const) {
      const runs = await check.runNode(mode);
      console.log(`\n${mode}:\n${exampleLines(runs).join('\n')}`);
      problems.push(...runs.filter((r) => !r.ok).map((r) => `${mode}: ${r.example.id} failed`));
    }

    const browser = await check.runBrowser();
    if (browser === undefined)
      console.log('\nbrowser: skipped, /usr/bin/chromium not found (apt-get install chromium)');
    else {
      const b = browser.bundle;
      console.log(
        `\nbrowser (chromium ${browser.chromium}; bundle ${kib(b.bytes)} in ${b.ms.toFixed(0)} ms):`,
      );
      if (b.nodeImports.length > 0)
        console.log(`  dynamic node: imports left external: ${b.nodeImports.join(', ')}`);
      console.log(exampleLines(browser.runs).join('\n'));
      problems.push(...browser.runs.filter((r) => !r.ok).map((r) => `browser: ${r.example.id} failed`));
    }

    console.log('\ntypings (skipLibCheck: false):');
    for (const r of await check.typings()) {
      console.log(`  ${r.profile}: ${r.files} files, ${r.diagnostics.length} errors (${r.ms.toFixed(0)} ms)`);
      for (const d of r.diagnostics.slice(0, 30)) console.log(`    ${d}`);
      problems.push(...r.diagnostics.map((d) => `typings ${r.profile}: ${d}`));
    }

    const cs = await check.changesets();
    console.log(`\nchangeset version dry run: ${cs.changesets.length} changesets`);
    for (const [name, v] of cs.versions)
      if (name.startsWith('@mx/') && !v.startsWith('0.0.')) console.log(`  ${name} → ${v}`);
    problems.push(...cs.problems);
  } catch (e) {
    problems.push(`stopped: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  } finally {
    check.dispose();
  }
  const steps = Object.entries(check.timings).map(([k, v]) => `${k} ${(v / 1000).toFixed(1)} s`);
  console.log(`\ntimes: ${steps.join(', ')}; total ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  if (problems.length === 0) {
    console.log('pack check: no problems');
    return 0;
  }
  console.log(`\npack check: ${problems.length} problems\n  ${problems.join('\n  ')}`);
  return 1;
}

process.exitCode = await main();
