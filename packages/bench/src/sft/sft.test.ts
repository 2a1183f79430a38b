import { describe, expect, it } from 'vitest';
import { countTransitions, isTransition } from '@terrarium/schema';
import { DEFAULT_TEMPLATES, renderMessages, selectTemplate } from '@terrarium/worlds';
import {
  benchItemsFromAgentWorldBench,
  formatAgentWorldBenchLine,
  toAgentWorldBenchRecord,
} from '../agentworldbench/records';
import { buildBench } from '../build-bench';
import { readSources } from '../real-data.testkit';
import { dropLeakingRecords, findLeaks } from './leaks';
import { sftRecords } from './sft-records';

const airline = await readSources(['tau2-airline']);
const bench = buildBench({
  trajectories: airline,
  name: 'sft',
  version: 1,
  sampling: { kind: 'agentworld' },
  seed: 5,
  devFraction: 0.7,
  createdAt: '2026-11-29T00:00:00.000Z',
  sources: ['tau2-airline'],
});
const testItems = bench.items.filter((item) => item.split === 'test');
const benchTrajectories = new Set(testItems.map((item) => item.origin.trajectory));
const train = sftRecords(airline, { excludeItems: testItems, includeReasoning: false });

describe('sftRecords', () => {
  it('makes one record per transition of every trajectory without a bench item', () => {
    expect(testItems).toHaveLength(36);
    expect(benchTrajectories.size).toBe(8);
    const expected = airline
      .filter((source) => !benchTrajectories.has(source.trajectory.externalId))
      .reduce((sum, source) => sum + countTransitions(source.trajectory), 0);
    expect(train).toHaveLength(expected);
    expect(train).toHaveLength(93);
    expect(train.some((record) => benchTrajectories.has(record.meta.trajectory))).toBe(false);
  });

  it('writes the simulator prompt: system, user(action)/assistant(observation), the real observation last', () => {
    const record = train.find((candidate) => candidate.meta.turnIndex === 2);
    expect(record?.messages.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(record?.messages[0]?.content).toMatch(/^You are a world model/);
    const source = airline.find(
      (candidate) => candidate.trajectory.externalId === record?.meta.trajectory,
    );
    const step = source?.trajectory.steps.find(
      (candidate) => candidate.index === record?.meta.stepIndex,
    );
    expect(record?.messages.at(-1)?.content).toBe(step?.observation?.content);
    if (source === undefined || step === undefined) throw new Error('record without source');
    const transitions = source.trajectory.steps
      .filter(isTransition)
      .flatMap((candidate) =>
        candidate.observation === null
          ? []
          : [{ action: candidate.action, observation: candidate.observation }],
      );
    expect(record?.messages.slice(0, -1)).toEqual(
      renderMessages(
        selectTemplate(DEFAULT_TEMPLATES, source.trajectory.domain),
        source.trajectory,
        transitions.slice(0, 2),
        step.action,
      ),
    );
  });

  it('puts reasoning before the observation when asked', () => {
    const [first] = sftRecords(airline.slice(0, 1), {
      excludeItems: [],
      includeReasoning: true,
      reasoningOf: (step) => `the call at step ${step.index} reads the reservation`,
    });
    expect(first?.messages.at(-1)?.content).toMatch(
      /^<think>\nthe call at step \d+ reads the reservation\n<\/think>\n\n/,
    );
  });

  it('also keeps out trajectories of items imported from a bench file (no origin)', () => {
    const { items } = benchItemsFromAgentWorldBench(
      testItems.map((item) => formatAgentWorldBenchLine(toAgentWorldBenchRecord(item))),
    );
    expect(items.every((item) => item.origin.dataset === null)).toBe(true);
    // The file kept the content-hash ids, so the trajectories holding them are found by content.
    expect(sftRecords(airline, { excludeItems: items, includeReasoning: false })).toEqual(train);
  });
});

describe('findLeaks', () => {
  it('finds the observations other trajectories share with the bench (same flights, same users)', () => {
    const leaks = findLeaks(train, testItems);
    expect(leaks).toHaveLength(11);
    expect(leaks[0]?.via).toBe('observation');
  });

  it('finds none once leaking turns are cut from training (the goal: 0)', () => {
    const clean = dropLeakingRecords(train, testItems);
    expect(clean.dropped).toBe(38);
    expect(clean.truncatedTrajectories).toBe(4);
    expect(clean.records).toHaveLength(55);
    expect(findLeaks(clean.records, testItems)).toEqual([]);
  });

  it('finds a deliberately leaked item', () => {
    const clean = dropLeakingRecords(train, testItems).records;
    const leaked = testItems.find((item) => item.real.content.length > 400);
    if (leaked === undefined) throw new Error('no long observation');
    const source = airline.find(
      (candidate) => candidate.trajectory.externalId === leaked.origin.trajectory,
    );
    if (source === undefined) throw new Error('no source');
    const withLeak = [
      ...clean,
      ...sftRecords([source], { excludeItems: [], includeReasoning: false }),
    ];
    const leaks = findLeaks(withLeak, testItems);
    expect(leaks.map((leak) => leak.itemId)).toContain(leaked.id);
    expect(leaks.find((leak) => leak.itemId === leaked.id)?.via).toBe('observation');
  });
});
