import { describe, expect, it } from 'vitest';
import { resumeNote } from './import-command';

const REPORT = {
  trajectories: 6132,
  transitions: 35_700,
  quarantined: 0,
  errors: [],
  unlistedErrors: 0,
  unlistedWarnings: 0,
  stoppedFiles: 0,
  unknownFormatFiles: 0,
  wrongFormatFiles: 0,
  warnings: [],
  formats: [],
};

describe('resumeNote', () => {
  it('counts what was read of the file the import stopped in, not only the files before it', () => {
    // One 143 MB file, killed three quarters in: no file before it.
    const note = resumeNote(
      { dataset: 'big', totalBytes: 143_576_321 },
      { bytesBefore: 0, bytesInFile: 110_000_000, report: REPORT },
    );
    expect(note).toEqual({
      text: 'Resuming the import into "big" that stopped after 6132 trajectories (76% of the bytes read).\n',
      bytesDone: 110_000_000,
    });
    // Two files of 100 bytes, stopped halfway through the second.
    expect(
      resumeNote(
        { dataset: 'two', totalBytes: 200 },
        { bytesBefore: 100, bytesInFile: 50, report: REPORT },
      ).bytesDone,
    ).toBe(150);
  });
});
