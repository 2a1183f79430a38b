import { describe, expect, it } from 'vitest';
import { saveTarget } from './save-target';

const LISTED = [
  { name: 'default-tool', latestVersion: 2 },
  { name: 'default-terminal', latestVersion: null },
];

describe('saveTarget', () => {
  it('names the next version of the chosen rule set', () => {
    expect(saveTarget(LISTED, 'default-tool', 'default-tool')).toEqual({
      label: 'Save as default-tool v3',
      renamed: null,
    });
    // A built-in default never saved gets its first version.
    expect(saveTarget(LISTED, 'default-terminal', 'default-terminal').label).toBe(
      'Save as default-terminal v1',
    );
  });

  it('says so when the draft was renamed away from the chosen rule set', () => {
    expect(saveTarget(LISTED, 'strict-tool', 'default-tool')).toEqual({
      label: 'Save as strict-tool v1',
      renamed:
        'The draft is named strict-tool: saving starts a new rule set; default-tool stays as it is.',
    });
    // A built-in default never saved gets its first version; a saved one its next.
    expect(saveTarget(LISTED, 'default-terminal', 'default-tool').renamed).toBe(
      'The draft is named default-terminal: saving makes its first version; default-tool stays as it is.',
    );
    expect(saveTarget(LISTED, 'default-tool', 'default-terminal').renamed).toBe(
      'The draft is named default-tool: saving adds a version to it; default-terminal stays as it is.',
    );
  });

  it('keeps the plain label while the draft is not valid', () => {
    expect(saveTarget(LISTED, null, 'default-tool')).toEqual({
      label: 'Save as new version',
      renamed: null,
    });
  });
});
