import { describe, expect, it } from 'vitest';
import { oracleNote, retryableFailures, simToGrade, trainingDataNote } from './simulation';

describe('the simulator to grade', () => {
  it('tells the replay oracle apart from simulators that model the environment', () => {
    expect(oracleNote('replay')).toMatch(/^Oracle: replay answers with the recorded observation/);
    expect([
      oracleNote('retrieval'),
      oracleNote('onnx:models/m'),
      oracleNote('openai:http://h#m'),
    ]).toEqual([null, null, null]);
  });

  it('says that the bundled model trained on the shipped trajectories, wherever it runs', () => {
    const named = [
      'onnx:models/terrarium-wm-tiny',
      'onnx:models/terrarium-wm-tiny@demo-tau2',
      'onnx:browser/terrarium-wm-tiny',
    ];
    for (const sim of named) expect(trainingDataNote(sim)).toMatch(/^Trained here on 4 of 5 tasks/);
    expect(
      ['onnx:models/other', 'onnx:/abs/terrarium-wm-tiny', 'retrieval'].map(trainingDataNote),
    ).toEqual([null, null, null]);
  });

  it('skips the oracle by default, keeps a pick the run has, and falls back to the first', () => {
    expect([
      simToGrade(['replay', 'retrieval']),
      simToGrade(['replay', 'retrieval', 'onnx:m.onnx']),
      simToGrade(['retrieval', 'replay']),
      simToGrade(['replay', 'retrieval'], 'replay'),
      // A pick from another run that this run does not have.
      simToGrade(['replay', 'onnx:m.onnx'], 'retrieval'),
      simToGrade(['replay']),
      simToGrade([]),
    ]).toEqual(['retrieval', 'retrieval', 'retrieval', 'replay', 'onnx:m.onnx', 'replay', null]);
  });
});

describe('failures a retry could change', () => {
  it('counts a model simulator’s failures, not the misses of replay or retrieval', () => {
    const model = 'openai:http://127.0.0.1:8000/v1#wm';
    expect(retryableFailures([])).toBe(0);
    expect(
      retryableFailures([
        { sim: 'replay', failed: 3 },
        { sim: 'retrieval', failed: 5 },
      ]),
    ).toBe(0);
    expect(
      retryableFailures([
        { sim: 'retrieval', failed: 5 },
        { sim: model, failed: 194 },
        { sim: 'onnx:models/terrarium-wm-tiny', failed: 2 },
      ]),
    ).toBe(196);
  });
});
