import { describe, expect, it } from 'vitest';
import { splitSide, type ModelSplitFile } from './model-split';

const split: ModelSplitFile = {
  rule: 'by task',
  heldOutTasks: ['tau-bench-v1/airline/1'],
  trainTasks: ['tau-bench-v1/airline/0'],
  trainCustomers: ['mia_li_3668'],
  transitions: {
    'tau-bench-v1/airline': { train: 2, heldOut: 1 },
    'swe-agent': { train: 1, heldOut: 0 },
  },
};

function trajectory(fields: { format: string; benchmark: string | null; taskId?: number }) {
  return {
    sourceFormat: fields.format,
    sourceBenchmark: fields.benchmark,
    task: 'You are mia_li_3668.',
    metadata: fields.taskId === undefined ? {} : { taskId: fields.taskId },
  };
}

describe('where a trajectory lies in a model’s split', () => {
  it('places a benchmark task on its side, and a benchmark the model never saw outside', () => {
    const tau = { format: 'tau-bench', benchmark: 'tau-bench/airline' };
    expect(splitSide(split, trajectory({ ...tau, taskId: 0 }))).toEqual({
      side: 'training',
      task: 'tau-bench-v1/airline/0',
    });
    expect(splitSide(split, trajectory({ ...tau, taskId: 7 }))).toEqual({
      side: 'outside',
      task: 'tau-bench-v1/airline/7',
      benchmark: 'tau-bench/airline',
    });
    expect(
      splitSide(split, trajectory({ format: 'intercode', benchmark: 'intercode/bash' })),
    ).toEqual({
      side: 'outside',
      task: null,
      benchmark: 'intercode/bash',
    });
  });

  it('cannot place a log that names no benchmark: it may be the training data converted', () => {
    // tau-bench airline task 0, trained on, as a chat-messages file carries it: no benchmark, no id.
    expect(splitSide(split, trajectory({ format: 'openai-messages', benchmark: null }))).toEqual({
      side: 'unknown',
      task: null,
      why: 'no-benchmark',
    });
    expect(splitSide(split, trajectory({ format: 'swe-agent', benchmark: 'swe-bench' }))).toEqual({
      side: 'unknown',
      task: null,
      why: 'swe-files',
    });
  });
});
