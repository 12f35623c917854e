// A stand-in for a training script under mx-launch: prints its pid and DMLC_* environment, then
// behaves as MX_FIXTURE_MODE says: `exit` (default) exits 0, `hang` stays alive until signalled,
// `ignore-term` also ignores SIGTERM, `fail:CODE` exits CODE after MX_FIXTURE_DELAY_MS (default 300).
// MX_FIXTURE_FAIL_TASK=N makes only the process with DMLC_TASK_ID N use MX_FIXTURE_FAIL_MODE instead.
const env = process.env;
const mode =
  env.MX_FIXTURE_FAIL_TASK !== undefined && env.MX_FIXTURE_FAIL_TASK === env.DMLC_TASK_ID
    ? env.MX_FIXTURE_FAIL_MODE
    : (env.MX_FIXTURE_MODE ?? 'exit');
console.log(`pid ${process.pid}`);
for (const k of Object.keys(process.env).filter((k) => k.startsWith('DMLC_') || k.startsWith('MX_FIXTURE_')).sort()) {
  console.log(`env ${k}=${process.env[k]}`);
}
if (process.argv.length > 2) console.log(`argv ${JSON.stringify(process.argv.slice(2))}`);
console.error(`stderr of ${process.env.DMLC_ROLE}`);
if (mode === 'hang' || mode === 'ignore-term') {
  if (mode === 'ignore-term') {
    process.on('SIGTERM', () => console.log('got SIGTERM, ignoring it'));
  } else {
    process.on('SIGTERM', () => {
      console.log('got SIGTERM, exiting');
      process.exit(0);
    });
  }
  setInterval(() => {}, 1000);
  console.log('ready');
} else if (mode.startsWith('fail:')) {
  setTimeout(() => process.exit(Number(mode.slice(5))), Number(process.env.MX_FIXTURE_DELAY_MS ?? 300));
} else {
  process.stdout.write('last line without a newline');
}
