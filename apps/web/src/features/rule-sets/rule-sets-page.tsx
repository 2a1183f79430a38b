import { DiffEditor } from '@monaco-editor/react';
import { useQuery } from '@tanstack/react-query';
import { diffableDocument, formatRuleSetIssues } from '@terrarium/rubrics';
import { useEffect, useState } from 'react';
import { useTRPC } from '../../app/trpc';
import { defaultRuleSetName, usePreviewRunDomain } from './default-rule-set';
import { PreviewPanel } from './preview-panel';
import { RuleSetEditor } from './rule-set-editor';
import { SaveRuleSetForm, type SavedRuleSet } from './save-rule-set-form';
import { saveTarget } from './save-target';
import { ScoreRunForm } from './score-run-form';
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

/**
 * Rule sets in Monaco: edit a version, watch the draft score a sample of a bench run's items
 * against the last saved version, save it as the next version with a message, score a whole run
 * with a saved version, and diff versions.
 */
export function RuleSetsPage() {
  const trpc = useTRPC();
  const list = useQuery(trpc.rulesets.list.queryOptions());
  const schema = useQuery({ ...trpc.rulesets.schema.queryOptions(), staleTime: Infinity });
  const [name, setName] = useState<string | null>(null);
  // Until the preview run's domain is known nothing is opened, so the editor never shows another
  // domain's rules first.
  const runDomain = usePreviewRunDomain();
  const chosen =
    name ??
    (runDomain.settled
      ? defaultRuleSetName(
          (list.data ?? []).map((entry) => entry.name),
          runDomain.domain,
        )
      : null);
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

  // The saved version is shown under its own name (a draft renamed and saved is a new rule set);
  // the name it was edited under goes back to its stored document.
  const showSaved = (saved: SavedRuleSet) => {
    setDrafts((old) =>
      Object.fromEntries([
        ...Object.entries(old).filter(([draftName]) => draftName !== chosen),
        [saved.name, saved.document],
      ]),
    );
    setName(saved.name);
  };

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
  // Walk 47: the header kept naming the chosen rule set while the draft's `name` said another.
  // The check and its name are of the draft as it stood 400 ms ago: until they are of the draft as
  // it is (and the list says which versions exist), Save waits and names nothing.
  const checked =
    settled === draft && !validation.isFetching && list.isSuccess && validation.data?.ok === true;
  const save = saveTarget(
    list.data ?? [],
    checked && validation.data?.ok === true ? validation.data.name : null,
    chosen,
  );
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
        {save.renamed !== null && (
          <span className="status" data-testid="draft-renamed">
            {save.renamed}
          </span>
        )}
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
                : // The first with its field and place, as the CLI says them (walk 47: a YAML
                  // syntax error has no field, and read as a message from nowhere).
                  `${issues.length} problem${issues.length === 1 ? '' : 's'}: ${formatRuleSetIssues(issues.slice(0, 1))}`}
          </p>
          <SaveRuleSetForm
            document={draft}
            valid={checked}
            label={save.label}
            onSaved={showSaved}
          />
        </section>
        <PreviewPanel document={settled} />
      </div>
      {chosen !== null && (
        <section aria-label="Score a whole run" className="panel panel-body">
          <h2>Score a whole run</h2>
          <p className="muted">
            Every prediction of a finished run, scored by a saved version of {chosen}: the version
            becomes a metric of the run, on its leaderboard, charts and cells (judge criteria are
            left out; re-judge a label queue for those).
          </p>
          <ScoreRunForm name={chosen} />
        </section>
      )}
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
              original={diffableDocument(fromDoc.data.document)}
              modified={diffableDocument(toDoc.data.document)}
              language={documentLanguage(toDoc.data.document)}
              options={{
                readOnly: true,
                renderSideBySide: true,
                minimap: { enabled: false },
                // Unchanged stretches fold to a line, so the changes are in sight however far
                // down the document they are (an indented JSON version runs to hundreds of lines).
                hideUnchangedRegions: { enabled: true, contextLineCount: 3 },
              }}
            />
          </div>
        )}
      </section>
    </div>
  );
}
