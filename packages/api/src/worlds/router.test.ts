import type { Store } from '@terrarium/db';
import { openMemoryStore } from '@terrarium/db/test-store';
import { sharedDataPath } from '@terrarium/schema/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectDataFiles, readDataFile } from '../import/collect-files';
import { importFiles } from '../import/import-files';
import { appRouter } from '../router';
import { measureWorlds, replaysInFlight } from './measure-worlds';
import { ANONYMOUS_PRINCIPAL, PROGRAM_PRINCIPAL } from '../trpc';

// SWE-agent data is MIT (../shared/data/swe-agent/LICENSE.upstream).
const SWE_AGENT = sharedDataPath('swe-agent');

describe('worlds router', () => {
  let store: Store;
  beforeAll(async () => {
    store = await openMemoryStore();
    const files = (await collectDataFiles([SWE_AGENT])).map(readDataFile);
    await importFiles(store, files, { dataset: 'swe' });
  }, 120_000);
  afterAll(async () => {
    await store.close();
  });

  it('reports the sufficiency of worlds rebuilt from a stored dataset, mismatches included', async () => {
    const api = appRouter.createCaller({ store, principal: PROGRAM_PRINCIPAL });
    const report = await api.worlds.sufficiency({ dataset: 'swe', maxMismatches: 5 });
    const { trajectories, byCommand, ...totals } = report;
    expect(totals).toEqual({
      dataset: 'swe',
      worlds: 22,
      skipped: 29,
      transitions: 203,
      exact: 56,
      fallback: 131,
      mismatch: 16,
    });
    expect(byCommand['cat']).toEqual({ transitions: 3, exact: 3, fallback: 0, mismatch: 0 });
    expect(trajectories.flatMap((trajectory) => trajectory.mismatches)).toHaveLength(5);
    // Each trajectory is named by its store id (the replay's) and by the name its file gave it.
    for (const trajectory of trajectories)
      expect((await store.getTrajectory(trajectory.id))?.externalId).toBe(trajectory.name);
    expect(trajectories.map((trajectory) => trajectory.name)).toContain(
      'swe-agent/ctf__crypto__BabyEncryption.traj',
    );
  }, 120_000);

  it('keeps mismatches only, a few of each command family, as the Worlds page asks', async () => {
    const api = appRouter.createCaller({ store, principal: PROGRAM_PRINCIPAL });
    const report = await api.worlds.sufficiency({
      dataset: 'swe',
      maxMismatches: 1000,
      perFamily: 2,
      outcome: 'mismatch',
    });
    const kept = report.trajectories.flatMap((trajectory) => trajectory.mismatches);
    expect(new Set(kept.map((check) => check.outcome))).toEqual(new Set(['mismatch']));
    // Every family with a mismatch keeps min(2, its mismatches): a small one is never crowded out.
    const perFamily = new Map<string, number>();
    for (const check of kept) perFamily.set(check.family, (perFamily.get(check.family) ?? 0) + 1);
    const expected = Object.entries(report.byCommand)
      .filter(([, counts]) => counts.mismatch > 0)
      .map(([family, counts]) => [family, Math.min(2, counts.mismatch)]);
    expect([...perFamily].toSorted()).toEqual(expected.toSorted());
    expect(expected.length).toBeGreaterThan(1);
  }, 120_000);

  it('says why each fallback is one, and no reason for a mismatch', async () => {
    const api = appRouter.createCaller({ store, principal: PROGRAM_PRINCIPAL });
    const records = async (outcome: 'mismatch' | 'fallback') =>
      (await api.worlds.sufficiency({ dataset: 'swe', maxMismatches: 1000, outcome })).trajectories
        .flatMap((trajectory) => trajectory.mismatches)
        .map((check) => check.reason);
    const reasons = new Map<string | null, number>();
    for (const reason of await records('fallback'))
      reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
    // SWE-agent's 0.x tools run on the world's files; a file the recording showed only in part
    // (`unknown-path`), a tree it only partly listed (`find_file`: `unknown-tree`) and the window
    // after such a file was opened (`unknown-open-file`) stay fallbacks. Not shell commands:
    // `submit`, EnIGMA's debugger and decompiler tools, and the tools of the versions the world
    // does not emulate (1.x, the cursor configurations).
    expect([...reasons].toSorted()).toEqual([
      ['command-not-found', 11],
      ['not-a-shell-command', 49],
      ['unknown-open-file', 10],
      ['unknown-path:/marshmallow-code__marshmallow/src/marshmallow/fields.py', 3],
      ['unknown-path:/pydicom__pydicom/pydicom/pixel_data_handlers/numpy_handler.py', 1],
      ['unknown-tree:/klieret__swe-agent-test-repo', 1],
      ['unknown-tree:/marshmallow-code__marshmallow/src', 3],
      ['unknown-tree:/pydicom__pydicom', 1],
      ['unsupported-command:curl', 18],
      ['unsupported-command:pip', 2],
      ['unsupported-command:python', 31],
      ['unsupported-command:python3', 1],
    ]);
    expect(new Set(await records('mismatch'))).toEqual(new Set([null]));
  }, 120_000);

  it('streams progress world by world, then the report; the same request again is answered from memory', async () => {
    const api = appRouter.createCaller({ store, principal: PROGRAM_PRINCIPAL });
    // Not pooled: the first test measured the pooled report, and it is kept.
    const input = { dataset: 'swe', pool: false, maxMismatches: 7 };
    const progress: number[] = [];
    const of = new Set<number>();
    const reports: number[] = [];
    for await (const event of await api.worlds.sufficiencyEvents(input)) {
      if (event.type === 'progress') {
        of.add(event.of);
        progress.push(event.done);
      } else reports.push(event.report.worlds);
    }
    expect([...of]).toEqual([22]);
    // The first event comes before any world is loaded; how many follow depends on the clock.
    expect(progress[0]).toBe(0);
    expect(progress).toEqual(progress.toSorted((a, b) => a - b));
    // Never the last world's: the report follows it.
    expect(progress.every((done) => done < 22)).toBe(true);
    expect(reports).toEqual([22]);
    const again: string[] = [];
    for await (const event of await api.worlds.sufficiencyEvents(input)) again.push(event.type);
    expect(again).toEqual(['report']);
    // The whole report is kept, so a request trimmed otherwise is answered from it too.
    const trimmed = [];
    for await (const event of await api.worlds.sufficiencyEvents({ ...input, maxMismatches: 2 }))
      trimmed.push(
        event.type === 'report'
          ? event.report.trajectories.flatMap((trajectory) => trajectory.mismatches).length
          : event.type,
      );
    expect(trimmed).toEqual([2]);
  }, 120_000);

  it('stops when its caller leaves, and keeps nothing half measured', async () => {
    const files = (await collectDataFiles([SWE_AGENT])).map(readDataFile);
    await importFiles(store, files.slice(0, 3), { dataset: 'swe-leaving' });
    const input = { dataset: 'swe-leaving', pool: true, maxMismatches: 0 };
    const leaving = new AbortController();
    const seen: string[] = [];
    for await (const event of measureWorlds(store, input, leaving.signal)) {
      seen.push(event.type);
      leaving.abort();
    }
    expect(seen).toEqual(['progress']);
    const after: string[] = [];
    for await (const event of measureWorlds(store, input)) after.push(event.type);
    expect(after[0]).toBe('progress');
    expect(after.at(-1)).toBe('report');
  }, 120_000);

  it('shares one replay between callers that ask at once, and keeps it going while one waits', async () => {
    const files = (await collectDataFiles([SWE_AGENT])).map(readDataFile);
    await importFiles(store, files.slice(0, 4), { dataset: 'swe-shared' });
    const input = { dataset: 'swe-shared', pool: true, maxMismatches: 0 };
    const leaving = new AbortController();
    const first = measureWorlds(store, input, leaving.signal);
    const second = measureWorlds(store, input);
    expect((await first.next()).value).toEqual({ type: 'progress', done: 0, of: 4 });
    expect((await second.next()).value).toMatchObject({ type: 'progress', of: 4 });
    expect(replaysInFlight(store)).toBe(1);
    // The first caller leaves; the replay goes on for the second.
    leaving.abort();
    expect(await first.next()).toEqual({ done: true, value: undefined });
    const rest: string[] = [];
    for await (const event of second)
      rest.push(event.type === 'report' ? `report of ${event.report.worlds}` : event.type);
    expect(rest.at(-1)).toBe('report of 4');
    expect(replaysInFlight(store)).toBe(0);
  }, 120_000);

  it('measures again once the dataset changed', async () => {
    const api = appRouter.createCaller({ store, principal: PROGRAM_PRINCIPAL });
    const before = await api.worlds
      .sufficiency({ dataset: 'swe-changing', maxMismatches: 0 })
      .catch((error: unknown) => error);
    expect(before).toMatchObject({ code: 'NOT_FOUND' });
    const files = (await collectDataFiles([SWE_AGENT])).map(readDataFile);
    await importFiles(store, files.slice(0, 2), { dataset: 'swe-changing' });
    const first = await api.worlds.sufficiency({ dataset: 'swe-changing', maxMismatches: 0 });
    await importFiles(store, files.slice(2, 4), { dataset: 'swe-changing' });
    const second = await api.worlds.sufficiency({ dataset: 'swe-changing', maxMismatches: 0 });
    expect([first.worlds, second.worlds]).toEqual([2, 4]);
  }, 120_000);

  it('refuses an anonymous caller and names an unknown dataset', async () => {
    const anonymous = appRouter.createCaller({ store, principal: ANONYMOUS_PRINCIPAL });
    await expect(anonymous.worlds.sufficiency({ dataset: 'swe' })).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
    });
    const api = appRouter.createCaller({ store, principal: PROGRAM_PRINCIPAL });
    await expect(api.worlds.sufficiency({ dataset: 'nope' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });
});
