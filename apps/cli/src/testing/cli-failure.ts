import { expect } from 'vitest';
import type { CliResult } from './run-cli';

/**
 * A failure the user can act on: exit 1 and the one line `terrarium: MESSAGE` on stderr. The stack
 * checks say what the exact match implies, so that a regression reads as "a stack trace leaked".
 */
export function expectOneLineFailure(result: CliResult, message: string): void {
  expect(result.stderr).not.toMatch(/^\s+at /m);
  expect(result.stderr).not.toMatch(/\.[cm]?[jt]s:\d+/);
  expect([result.code, result.stderr]).toEqual([1, `terrarium: ${message}\n`]);
}
