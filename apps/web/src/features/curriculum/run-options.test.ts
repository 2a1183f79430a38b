import { describe, expect, it } from 'vitest';
import { curriculumRun } from './curriculum.fixture';
import { runOptionLabel, runsAsShown } from './run-options';

describe('runOptionLabel', () => {
  it('names the run, its seeds, policy and simulator, status and generations', () => {
    expect(runOptionLabel(curriculumRun())).toBe(
      '#1 intercode-bash, scripted vs retrieval: running, 2/4',
    );
    expect(runOptionLabel(curriculumRun({ id: '7', dataset: 'builtin', settings: null }))).toBe(
      '#7 builtin, ?: running, 2/4',
    );
  });
});

describe('runsAsShown', () => {
  it('lists the shown run as its own query reads it, the others as the list does (walk 52)', () => {
    const listed = [
      curriculumRun(),
      curriculumRun({ id: '2', status: 'done', generationsDone: 4 }),
    ];
    const shown = curriculumRun({ status: 'done', generationsDone: 4 });
    expect(runsAsShown(listed, shown).map(runOptionLabel)).toEqual([
      '#1 intercode-bash, scripted vs retrieval: done, 4/4',
      '#2 intercode-bash, scripted vs retrieval: done, 4/4',
    ]);
    // No run shown (or not read yet): the list as it is.
    expect(runsAsShown(listed, null)).toEqual(listed);
  });
});
