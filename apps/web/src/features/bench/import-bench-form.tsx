import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { formatCount } from '../../app/format';
import { useTRPC } from '../../app/trpc';
import { benchFilesOf, uploadBench, type BenchUploadOutcome } from './bench-upload';

/** AgentWorldBench JSONL files (one, or a folder's `*_test.jsonl`) uploaded as one bench. */
export function ImportBenchForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [files, setFiles] = useState<File[]>([]);
  const [sent, setSent] = useState<number | null>(null);
  const [outcome, setOutcome] = useState<BenchUploadOutcome | null>(null);
  const chosen = benchFilesOf(files);
  const total = chosen.reduce((sum, file) => sum + file.size, 0);
  const busy = sent !== null;
  return (
    <form
      className="bench-form"
      aria-label="Import bench"
      onSubmit={async (event) => {
        event.preventDefault();
        setOutcome(null);
        setSent(0);
        const result = await uploadBench(name.trim(), chosen, setSent);
        setSent(null);
        setOutcome(result);
        await queryClient.invalidateQueries({ queryKey: trpc.bench.list.queryKey() });
      }}
    >
      <label className="field">
        Name{' '}
        <input
          type="text"
          aria-label="Imported bench name"
          value={name}
          onChange={(event) => setName(event.target.value)}
          placeholder="agentworldbench"
        />
      </label>
      <label className="field">
        Files{' '}
        <input
          type="file"
          multiple
          accept=".jsonl"
          aria-label="AgentWorldBench files"
          data-testid="bench-import-files"
          onChange={(event) => setFiles(Array.from(event.target.files ?? []))}
        />
      </label>
      <span className="muted">
        {chosen.map((file) => file.name).join(', ') || 'one {domain}_test.jsonl or several'}
      </span>
      <button type="submit" disabled={busy || chosen.length === 0 || name.trim() === ''}>
        {busy ? `Uploading… ${formatCount(sent)} of ${formatCount(total)} bytes` : 'Import bench'}
      </button>
      {outcome !== null && !outcome.ok && (
        <p className="status status-error" role="alert">
          {outcome.error}
        </p>
      )}
      {outcome?.ok === true && (
        <div role="status" data-testid="bench-import-result">
          {outcome.result.manifest === null ? (
            <p className="status status-error">No row could be read; nothing imported.</p>
          ) : (
            <p>
              Imported {outcome.result.manifest.name} v{outcome.result.manifest.version}:{' '}
              {formatCount(outcome.result.manifest.itemCount)} items
            </p>
          )}
          {outcome.result.errors.length > 0 && (
            <ul className="bench-import-errors">
              {outcome.result.errors.slice(0, 50).map((error) => (
                <li key={`${error.file}:${error.line}`} className="mono">
                  {error.message}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </form>
  );
}
