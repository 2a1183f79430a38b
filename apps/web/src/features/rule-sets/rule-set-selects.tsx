import type { BenchRun } from '@terrarium/schema';

/** A finished bench run to preview or score: bench, simulators and id, as the run list names it. */
export function RunSelect({
  label,
  runs,
  value,
  onChange,
}: {
  label: string;
  runs: readonly BenchRun[];
  value: string | null;
  onChange(runId: string): void;
}) {
  return (
    <select
      aria-label={label}
      value={value ?? ''}
      onChange={(event) => onChange(event.target.value)}
    >
      {runs.map((run) => (
        <option key={run.id} value={run.id}>
          {run.bench} v{run.benchVersion} · {run.sims.join(', ')} · run {run.id}
        </option>
      ))}
    </select>
  );
}

/** A saved version of a rule set, named by its number and the message it was saved with. */
export function VersionSelect({
  label,
  versions,
  value,
  onChange,
}: {
  label: string;
  versions: readonly { version: number; message: string }[];
  value: number | null;
  onChange(version: number): void;
}) {
  return (
    <select
      aria-label={label}
      value={value ?? ''}
      onChange={(event) => onChange(Number(event.target.value))}
    >
      {versions.length === 0 && <option value="">built-in (no saved version)</option>}
      {versions.map((entry) => (
        <option key={entry.version} value={entry.version}>
          v{entry.version} · {entry.message}
        </option>
      ))}
    </select>
  );
}

/** The newest of a rule set's saved versions; null when none is saved. */
export function newestVersion(versions: readonly { version: number }[] | undefined): number | null {
  const newest = (versions ?? []).reduce((max, entry) => Math.max(max, entry.version), 0);
  return newest > 0 ? newest : null;
}
