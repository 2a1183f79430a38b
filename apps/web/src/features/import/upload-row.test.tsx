import type { ImportReport } from '@terrarium/schema';
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { importVerdict } from './import-outcome';
import { UploadRow, type Upload } from './upload-row';

afterEach(cleanup);

function report(fields: Partial<ImportReport>): ImportReport {
  return {
    dataset: 'runs',
    format: 'openai-messages',
    trajectories: 0,
    transitions: 0,
    quarantined: 0,
    errors: [],
    ...fields,
  };
}

function finished(result: ImportReport): Upload {
  return {
    id: 1,
    file: new File(['x'], 'runs.jsonl'),
    dataset: 'runs',
    status: 'done',
    sentBytes: 1,
    jobId: '1',
    outcome: { ok: true, report: result, exitCode: 1 },
  };
}

const BAD_LINE = { file: 'runs.jsonl', line: 2, byteOffset: 40, reason: 'not JSON' };
const UNREADABLE = { file: 'notes.bin', line: null, byteOffset: null, reason: 'no format' };
/** As the import reports SWE-agent's real `all_preds.jsonl`, which holds patches, not runs. */
const NO_FORMAT = {
  file: 'all_preds.jsonl',
  line: null,
  byteOffset: null,
  reason:
    'unknown format: it matches none of the known formats (agentworldbench, atif, intercode, intercode-human-sql, mini-swe-agent, openai-messages, openhands, sharegpt, swe-agent, tau-bench-v1, tau2-bench); its first record has the keys model_name_or_path, instance_id, model_patch',
};

describe('importVerdict', () => {
  it('says imported, imported with problems, or nothing imported, in words', () => {
    expect(importVerdict(report({ trajectories: 3, transitions: 9 }))).toEqual({
      tone: 'done',
      label: 'imported',
      detail: null,
    });
    expect(
      importVerdict(
        report({
          trajectories: 2,
          quarantined: 1,
          errors: [BAD_LINE, UNREADABLE],
          stoppedFiles: 1,
        }),
      ),
    ).toEqual({
      tone: 'partial',
      label: 'imported with problems',
      detail:
        '2 trajectories were imported; 1 record was set aside as unreadable, 1 file could not be read to its end (listed below).',
    });
    expect(importVerdict(report({ errors: [UNREADABLE], stoppedFiles: 1 }))).toEqual({
      tone: 'failed',
      label: 'nothing imported',
      detail: 'Nothing could be imported from this file: 1 file could not be read to its end.',
    });
    // A file in no known format beside one cut off and a bad record: each said for what it is.
    expect(
      importVerdict(
        report({
          trajectories: 2,
          quarantined: 1,
          errors: [BAD_LINE, NO_FORMAT, UNREADABLE],
          unknownFormatFiles: 1,
          stoppedFiles: 1,
        }),
      ),
    ).toEqual({
      tone: 'partial',
      label: 'imported with problems',
      detail:
        '2 trajectories were imported; 1 record was set aside as unreadable, 1 file is in no known format, 1 file could not be read to its end (listed below).',
    });
    // A file imported again: nothing new, and nothing wrong either.
    expect(importVerdict(report({ alreadyStored: 40 }))).toEqual({
      tone: 'done',
      label: 'already imported',
      detail:
        'All 40 trajectories read were in runs already, byte for byte (imported before?), and were not stored again.',
    });
  });
});

describe('UploadRow', () => {
  it('never shows a green "imported" badge for an import that kept nothing, nor an exit code', () => {
    const { container } = render(
      <UploadRow upload={finished(report({ errors: [UNREADABLE], stoppedFiles: 1 }))} />,
    );
    const badge = screen.getByTestId('upload-verdict');
    expect([badge.textContent, badge.dataset['tone'], badge.className]).toEqual([
      'nothing imported',
      'failed',
      'upload-status status-failed',
    ]);
    expect(screen.getByRole('alert').textContent).toBe(
      'Nothing could be imported from this file: 1 file could not be read to its end.',
    );
    expect(container.textContent).not.toMatch(/exit code/i);
  });

  it('says a file is in no known format, with the reason the CLI gives, not that it stopped', () => {
    render(
      <UploadRow
        upload={finished(report({ format: null, errors: [NO_FORMAT], unknownFormatFiles: 1 }))}
      />,
    );
    expect(screen.getByRole('alert').textContent).toBe(
      'Nothing could be imported from this file: 1 file is in no known format.',
    );
    expect(
      Array.from(
        screen.getByTestId('import-errors').querySelectorAll('tbody td'),
        (cell) => cell.textContent,
      ),
    ).toEqual(['all_preds.jsonl', '—', NO_FORMAT.reason]);
  });

  it('marks a partial import as such', () => {
    render(
      <UploadRow
        upload={finished(report({ trajectories: 2, quarantined: 1, errors: [BAD_LINE] }))}
      />,
    );
    expect(screen.getByTestId('upload-verdict').textContent).toBe('imported with problems');
  });
});
