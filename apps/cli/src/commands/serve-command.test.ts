import type { ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { seededDataDir } from '@terrarium/db/test-store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitOf, runCli, startCli, waitForServeUrl } from '../testing/run-cli';

/** Resolves when `child` has written `text` to stderr. */
function stderrShows(child: ChildProcess, text: string): Promise<void> {
  return new Promise((resolve) => {
    let seen = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      if (seen.includes(text)) resolve();
    });
  });
}

describe('terrarium serve on a folder another server holds', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await seededDataDir('serve-held');
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it(
    'names the server that serves it, and waits for one on its way out',
    { timeout: 180_000 },
    async () => {
      const first = startCli(['serve', '--port', '0', '--data-dir', dataDir]);
      const url = await waitForServeUrl(first);
      const second = await runCli(['serve', '--port', '0', '--data-dir', dataDir]);
      expect(second.code).toBe(1);
      // One line in the user's words: no stack trace, no source paths.
      expect(second.stderr).toBe(
        `terrarium: a Terrarium server already serves ${dataDir} at ${url} (pid ${first.pid}); stop it first, or choose another --data-dir\n`,
      );
      // A holder that no longer answers (stopped here, as one busy shutting down would be) is
      // waited for; once it exits, the new server starts on the folder.
      first.kill('SIGSTOP');
      const third = startCli(['serve', '--port', '0', '--data-dir', dataDir]);
      try {
        await stderrShows(third, `waiting for pid ${first.pid} to let go of ${dataDir}`);
        first.kill('SIGCONT');
        first.kill('SIGTERM');
        expect(await waitForServeUrl(third)).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      } finally {
        first.kill('SIGCONT');
        third.kill('SIGTERM');
      }
      expect([await exitOf(first), await exitOf(third)]).toEqual([0, 0]);
    },
  );
});
