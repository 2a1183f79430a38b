import { DiffEditor } from '@monaco-editor/react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTRPC } from '../../app/trpc';
import { PreviewTable, usePreview } from './preview-table';
import { RuleSetEditor } from './rule-set-editor';
import { documentLanguage } from './schema-hints';
import './rule-sets.css';

function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = window.setTimeout(() => setSettled(value), ms);
    return () => window.clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

type SampleKind = 'first' | 'random' | 'worst';

/**
 * Rule sets in Monaco: edit a version, watch the draft score a sample of a bench run's items
 * against the last saved version, save it as the next version with a message, and diff versions.
 */
export function RuleSetsPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useQuery(trpc.rulesets.list.queryOptions());
  const schema = useQuery({ ...trpc.rulesets.schema.queryOptions(), staleTime: Infinity });
  const runs = useQuery(trpc.bench.runs.queryOptions({}));
  const [name, setName] = useState<string | null>(null);
  const chosen = name ?? list.data?.[0]?.name ?? null;
  const latest = useQuery({
    ...trpc.rulesets.get.queryOptions({ name: chosen ?? '' }),
    enabled: chosen !== null,
  });
  const versions = useQuery({
    ...trpc.rulesets.versions.queryOptions({ name: chosen ?? '' }),
    enabled: chosen !== null,
  });
  const [drafts, setDrafts] = useState<Record<string, string>>({});
  const draft = chosen === null ? '' : (drafts[chosen] ?? latest.data?.document ?? '');
  const setDraft = (text: string) => {
    if (chosen !== null) setDrafts({ ...drafts, [chosen]: text });
  };
  const settled = useDebounced(draft, 400);
  const validation = useQuery({
    ...trpc.rulesets.validate.queryOptions({ document: settled }),
    enabled: settled !== '',
  });

  const finished = (runs.data ?? []).filter((run) => run.status === 'done');
  const [runId, setRunId] = useState<string | null>(null);
  const previewRun = runId ?? finished[0]?.id ?? null;
  const [sampleKind, setSampleKind] = useState<SampleKind>('first');
  const [sampleSize, setSampleSize] = useState(10);
  const preview = usePreview();
  const { mutate: runPreview } = preview;
  useEffect(() => {
    if (settled === '' || previewRun === null) return;
    const sample =
      sampleKind === 'random'
        ? { kind: sampleKind, n: sampleSize, seed: 1 }
        : { kind: sampleKind, n: sampleSize };
    runPreview({ document: settled, source: { kind: 'run', runId: previewRun }, sample });
  }, [settled, previewRun, sampleKind, sampleSize, runPreview]);

  const [message, setMessage] = useState('');
  const save = useMutation(
    trpc.rulesets.save.mutationOptions({
      onSuccess: async (saved) => {
        setMessage('');
        setDrafts((old) => ({ ...old, [saved.name]: saved.document }));
        await queryClient.invalidateQueries({ queryKey: trpc.rulesets.pathKey() });
      },
    }),
  );

  const [from, setFrom] = useState<number | null>(null);
  const [to, setTo] = useState<number | null>(null);
  const fromDoc = useQuery({
    ...trpc.rulesets.get.queryOptions({ name: chosen ?? '', version: from ?? 1 }),
    enabled: chosen !== null && from !== null,
  });
  const toDoc = useQuery({
    ...trpc.rulesets.get.queryOptions({ name: chosen ?? '', version: to ?? 1 }),
    enabled: chosen !== null && to !== null,
  });

  const issues = validation.data?.issues ?? [];
  return (
    <div className="page rule-sets-page">
      <header className="page-header">
        <h1>Rule sets</h1>
        <label>
          Rule set{' '}
          <select
            value={chosen ?? ''}
            onChange={(event) => setName(event.target.value)}
            aria-label="Rule set"
          >
            {(list.data ?? []).map((entry) => (
              <option key={entry.name} value={entry.name}>
                {entry.name}
                {entry.latestVersion === null ? ' (built-in)' : ` v${entry.latestVersion}`}
              </option>
            ))}
          </select>
        </label>
        <span className="muted">
          {latest.data &&
            (latest.data.version === null
              ? 'built-in default, never saved'
              : `v${latest.data.version} by ${latest.data.author}: ${latest.data.message}`)}
        </span>
      </header>
      <div className="rule-sets-layout">
        <section aria-label="Editor">
          <RuleSetEditor
            value={draft}
            onChange={setDraft}
            schema={schema.data ?? null}
            issues={issues}
          />
          <p className="muted" data-testid="rule-set-status">
            {documentLanguage(draft).toUpperCase()} ·{' '}
            {validation.data === undefined
              ? 'checking…'
              : validation.data.ok
                ? 'valid'
                : `${issues.length} problem${issues.length === 1 ? '' : 's'}: ${issues[0]?.field ?? ''} ${issues[0]?.message ?? ''}`}
          </p>
          <form
            className="page-actions"
            aria-label="Save rule set"
            onSubmit={(event) => {
              event.preventDefault();
              if (message.trim() !== '') save.mutate({ document: draft, message: message.trim() });
            }}
          >
            <input
              aria-label="Version message"
              placeholder="What changed, and why"
              value={message}
              onChange={(event) => setMessage(event.target.value)}
            />
            <button
              type="submit"
              className="button primary"
              disabled={save.isPending || message.trim() === '' || validation.data?.ok !== true}
            >
              Save as new version
            </button>
            {save.data && (
              <span className="status" data-testid="saved-version">
                Saved {save.data.name} v{save.data.version}
              </span>
            )}
            {save.error && <span className="status status-error">{save.error.message}</span>}
          </form>
        </section>
        <section aria-label="Preview" className="panel panel-body">
          <h2>Preview</h2>
          <div className="page-actions">
            <select
              aria-label="Preview run"
              value={previewRun ?? ''}
              onChange={(event) => setRunId(event.target.value)}
            >
              {finished.map((run) => (
                <option key={run.id} value={run.id}>
                  {run.bench} v{run.benchVersion} · {run.sims.join(', ')} · run {run.id}
                </option>
              ))}
            </select>
            <select
              aria-label="Sample"
              value={sampleKind}
              onChange={(event) => {
                const value = event.target.value;
                if (value === 'first' || value === 'random' || value === 'worst')
                  setSampleKind(value);
              }}
            >
              <option value="first">first items</option>
              <option value="random">random items</option>
              <option value="worst">worst under the draft</option>
            </select>
            <input
              aria-label="Sample size"
              type="number"
              min={1}
              max={200}
              value={sampleSize}
              onChange={(event) => setSampleSize(Math.max(1, Number(event.target.value) || 1))}
            />
          </div>
          {finished.length === 0 && <p className="muted">Run a bench to preview on its items.</p>}
          {preview.error && <p className="status status-error">{preview.error.message}</p>}
          {preview.data && <PreviewTable result={preview.data} />}
        </section>
      </div>
      <section aria-label="Diff versions" className="panel panel-body">
        <h2>Diff two versions</h2>
        <div className="page-actions">
          {[['From', from, setFrom] as const, ['To', to, setTo] as const].map(
            ([label, value, set]) => (
              <select
                key={label}
                aria-label={`${label} version`}
                value={value ?? ''}
                onChange={(event) =>
                  set(event.target.value === '' ? null : Number(event.target.value))
                }
              >
                <option value="">{label}…</option>
                {(versions.data ?? []).map((entry) => (
                  <option key={entry.version} value={entry.version}>
                    v{entry.version} · {entry.author} · {entry.message}
                  </option>
                ))}
              </select>
            ),
          )}
        </div>
        {fromDoc.data && toDoc.data && (
          <div data-testid="rule-set-diff">
            <DiffEditor
              height="40vh"
              original={fromDoc.data.document}
              modified={toDoc.data.document}
              language={documentLanguage(toDoc.data.document)}
              options={{ readOnly: true, renderSideBySide: true, minimap: { enabled: false } }}
            />
          </div>
        )}
      </section>
    </div>
  );
}
