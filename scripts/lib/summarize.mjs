// Prints the one closing line CI reads ("N passed, N failed"), adding up the static checks, vitest's
// JSON report and Playwright's JSON report. Exits non-zero when anything failed or nothing ran.
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2];
let passed = 0;
let failed = 0;
let skipped = 0;

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
  const { stats } = JSON.parse(readFileSync(playwrightFile, 'utf8'));
  passed += stats.expected + stats.flaky;
  failed += stats.unexpected;
  skipped += stats.skipped;
} else {
  failed++;
  console.log('FAILED: Playwright wrote no report');
}

console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
