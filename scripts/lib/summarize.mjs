// Prints the one closing line CI reads ("N passed, N failed", ", N skipped" when some did not run),
// adding up the static checks, vitest's JSON report and Playwright's JSON report. Above it, every test
// that did not run is listed with its reason (the suite's title names it, e.g. data not shipped), so
// a skip is never silent. Exits non-zero when anything failed or nothing ran.
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';

const dir = process.argv[2];
let passed = 0;
let failed = 0;
let skipped = 0;
/** Tests that did not run: where, what (its full title carries the reason), and any annotation. */
const notRun = [];

for (const name of readdirSync(dir).filter((n) => n.startsWith('check-'))) {
  if (readFileSync(join(dir, name), 'utf8').trim() === 'ok') passed++;
  else {
    failed++;
    console.log(`FAILED check: ${name.slice('check-'.length)}`);
  }
}

const vitestFile = join(dir, 'vitest.json');
if (existsSync(vitestFile)) {
  const report = JSON.parse(readFileSync(vitestFile, 'utf8'));
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  skipped += report.numPendingTests + report.numTodoTests;
  for (const suite of report.testResults) {
    for (const test of suite.assertionResults) {
      if (['skipped', 'pending', 'todo'].includes(test.status)) {
        notRun.push(`${relative(process.cwd(), suite.name)}: ${test.fullName}`);
      }
    }
  }
  // A test that neither passed, failed nor was skipped never finished: its process died (a crash in
  // a worker thread took one file's last tests with it once, and the run still said "0 failed").
  const unfinished =
    report.numTotalTests -
    report.numPassedTests -
    report.numFailedTests -
    report.numPendingTests -
    report.numTodoTests;
  if (unfinished > 0) {
    failed += unfinished;
    console.log(`FAILED: ${unfinished} test(s) never finished (did a test process crash?):`);
    for (const suite of report.testResults) {
      for (const test of suite.assertionResults) {
        if (!['passed', 'failed', 'skipped', 'pending', 'todo'].includes(test.status)) {
          console.log(`  - ${relative(process.cwd(), suite.name)}: ${test.fullName}`);
        }
      }
    }
  }
  // A test file that fails to load has no tests but must still count as a failure.
  for (const suite of report.testResults) {
    if (suite.status === 'failed' && suite.assertionResults.length === 0) {
      failed++;
      console.log(`FAILED to load: ${suite.name}: ${suite.message}`);
    }
  }
} else {
  failed++;
  console.log('FAILED: vitest wrote no report');
}

const playwrightFile = join(dir, 'playwright.json');
if (existsSync(playwrightFile)) {
  const report = JSON.parse(readFileSync(playwrightFile, 'utf8'));
  const { stats } = report;
  passed += stats.expected + stats.flaky;
  failed += stats.unexpected;
  skipped += stats.skipped;
  // Errors outside any test (the web server did not start, a config error): nothing may have run.
  for (const error of report.errors ?? []) {
    failed++;
    console.log(`FAILED (Playwright): ${String(error.message ?? error).split('\n')[0]}`);
  }
  for (const { file, title, reason } of skippedSpecs(report.suites ?? [], [])) {
    notRun.push(`${file}: ${title}${reason ? ` (${reason})` : ''}`);
  }
} else {
  failed++;
  console.log('FAILED: Playwright wrote no report');
}

if (notRun.length > 0) {
  console.log(`Not run (${notRun.length}):`);
  for (const line of notRun) console.log(`  - ${line}`);
}
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);

/** Playwright's skipped tests, with the reason `test.skip(condition, reason)` gave. */
function skippedSpecs(suites, titles) {
  const found = [];
  for (const suite of suites) {
    const path =
      suite.title && !suite.file?.endsWith(suite.title) ? [...titles, suite.title] : titles;
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        if (test.status !== 'skipped') continue;
        const reason = (test.annotations ?? [])
          .filter((annotation) => annotation.type === 'skip' && annotation.description)
          .map((annotation) => annotation.description)
          .join('; ');
        found.push({
          file: spec.file ?? suite.file,
          title: [...path, spec.title].join(' > '),
          reason,
        });
      }
    }
    found.push(...skippedSpecs(suite.suites ?? [], path));
  }
  return found;
}
