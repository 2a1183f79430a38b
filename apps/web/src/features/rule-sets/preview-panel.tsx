import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTRPC } from '../../app/trpc';
import { MAX_PREVIEW_ITEMS } from '@terrarium/rubrics';
import { oracleNote, simToGrade } from '@terrarium/schema';
import { previewableRuns, usePreviewQuery, type PreviewInput } from './preview-query';
import { PreviewTable } from './preview-table';
import { RunSelect } from './rule-set-selects';

type SampleKind = 'first' | 'random' | 'worst';

/**
 * The draft (`document`, already debounced) scored on a sample of one simulator's predictions in a
 * finished bench run, beside the last saved version of its name.
 */
export function PreviewPanel({ document }: { document: string }) {
  const trpc = useTRPC();
  const runs = useQuery(trpc.bench.runs.queryOptions({}));
  const finished = previewableRuns(runs.data);
  const [runId, setRunId] = useState<string | null>(null);
  const run = finished.find((candidate) => candidate.id === runId) ?? finished[0] ?? null;
  const [pickedSim, setPickedSim] = useState<string | null>(null);
  const sim = run === null ? null : simToGrade(run.sims, pickedSim);
  const [sampleKind, setSampleKind] = useState<SampleKind>('first');
  const [sampleSize, setSampleSize] = useState(10);

  const input: PreviewInput | null =
    document === '' || run === null || sim === null
      ? null
      : {
          document,
          source: { kind: 'run', runId: run.id, sim },
          sample:
            sampleKind === 'random'
              ? { kind: sampleKind, n: sampleSize, seed: 1 }
              : { kind: sampleKind, n: sampleSize },
        };
  const preview = usePreviewQuery(input);

  return (
    <section aria-label="Preview" className="panel panel-body preview-panel">
      <h2>Preview</h2>
      <div className="preview-controls">
        <RunSelect
          label="Preview run"
          runs={finished}
          value={run?.id ?? null}
          onChange={setRunId}
        />
        <select
          aria-label="Preview simulator"
          value={sim ?? ''}
          onChange={(event) => setPickedSim(event.target.value)}
        >
          {(run?.sims ?? []).map((spec) => (
            <option key={spec} value={spec}>
              {spec}
              {oracleNote(spec) === null ? '' : ' (oracle)'}
            </option>
          ))}
        </select>
        <select
          aria-label="Sample"
          value={sampleKind}
          onChange={(event) => {
            const value = event.target.value;
            if (value === 'first' || value === 'random' || value === 'worst') setSampleKind(value);
          }}
        >
          <option value="first">first items</option>
          <option value="random">random items</option>
          <option value="worst">worst under the draft</option>
        </select>
        <input
          aria-label="Sample size"
          className="preview-sample-size"
          type="number"
          min={1}
          max={MAX_PREVIEW_ITEMS}
          value={sampleSize}
          onChange={(event) =>
            setSampleSize(Math.min(MAX_PREVIEW_ITEMS, Math.max(1, Number(event.target.value) || 1)))
          }
        />
      </div>
      {sim !== null && oracleNote(sim) !== null && (
        <p className="note" data-testid="preview-oracle-note">
          {sim} is an oracle: it answers with the recorded observation itself, so every rule that
          compares with the real output scores 100 by construction. Pick another simulator to see
          what the draft changes.
        </p>
      )}
      {runs.isSuccess && finished.length === 0 && (
        <p className="muted">Run a bench to preview on its items.</p>
      )}
      {preview.error && <p className="status status-error">{preview.error.message}</p>}
      {preview.isPlaceholderData && (
        <p className="muted" role="status" data-testid="preview-updating">
          Scoring the draft again… the table shows the last preview until then.
        </p>
      )}
      {preview.data && <PreviewTable result={preview.data} />}
    </section>
  );
}
