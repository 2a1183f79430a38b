import { useQueryClient } from '@tanstack/react-query';
import type { Action } from '@terrarium/schema';
import { useEffect, useRef, useState } from 'react';
import { Elapsed } from '../../app/elapsed';
import { Link } from '../../app/link';
import { useTRPC, useTRPCClient } from '../../app/trpc';
import { actionFromDraft, draftOf, type ActionDraft, type DraftField } from './fork-action';
import type { ForkSims } from './fork-sims';

/** The API carries a fork on at most this many steps past the edited one. */
export const MAX_FORK_CONTINUE_STEPS = 50;

type ForkOutcome = Awaited<
  ReturnType<ReturnType<typeof useTRPCClient>['simulate']['fork']['mutate']>
>;

type ForkState =
  | { status: 'editing' }
  | { status: 'forking'; startedAt: number; done: number; total: number | null }
  | { status: 'done'; fork: ForkOutcome }
  | { status: 'error'; message: string };

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function FieldError({ field, error }: { field: DraftField; error: DraftError | null }) {
  if (error?.field !== field) return null;
  return (
    <span className="status-error fork-field-error" role="alert" data-testid="fork-error">
      {error.message}
    </span>
  );
}

interface DraftError {
  field: DraftField;
  message: string;
}

function DraftFields({
  draft,
  error,
  onChange,
}: {
  draft: ActionDraft;
  error: DraftError | null;
  onChange(draft: ActionDraft): void;
}) {
  switch (draft.type) {
    case 'tool_call':
    case 'browser':
      return (
        <>
          <label className="fork-field">
            Tool name
            <input
              type="text"
              className="mono"
              aria-label="Tool name"
              value={draft.name}
              onChange={(event) => onChange({ ...draft, name: event.target.value })}
            />
            <FieldError field="name" error={error} />
          </label>
          <label className="fork-field">
            Arguments (JSON)
            <textarea
              className="mono"
              aria-label="Arguments (JSON)"
              rows={Math.min(12, draft.argumentsText.split('\n').length + 1)}
              spellCheck={false}
              value={draft.argumentsText}
              onChange={(event) => onChange({ ...draft, argumentsText: event.target.value })}
            />
            <FieldError field="arguments" error={error} />
          </label>
        </>
      );
    case 'command':
      return (
        <label className="fork-field">
          Command
          <textarea
            className="mono"
            aria-label="Command"
            rows={Math.min(8, draft.command.split('\n').length + 1)}
            spellCheck={false}
            value={draft.command}
            onChange={(event) => onChange({ ...draft, command: event.target.value })}
          />
          <FieldError field="command" error={error} />
        </label>
      );
    case 'keystrokes':
      return (
        <label className="fork-field">
          Keystrokes
          <input
            type="text"
            className="mono"
            aria-label="Keystrokes"
            value={draft.keys}
            onChange={(event) => onChange({ ...draft, keys: event.target.value })}
          />
          <FieldError field="keys" error={error} />
        </label>
      );
  }
}

/**
 * "What if…": edit the action of one step, pick a simulator, and fork. The server replays the
 * trajectory up to the step, asks the simulator for the edited action's observation, then carries
 * the recorded later actions on with simulated observations (closed loop), and stores the result
 * as a trajectory of its own; the link opens it in the replay view.
 */
export function ForkEditor({
  trajectoryId,
  step,
  action,
  sims,
  remainingSteps,
  onClose,
}: {
  trajectoryId: string;
  step: number;
  action: Action;
  /** What a fork can continue with (`forkSims`). */
  sims: ForkSims;
  /** Steps of the trajectory after this one. */
  remainingSteps: number | null;
  onClose(): void;
}) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState(() => draftOf(action));
  const available = sims.options;
  const [sim, setSim] = useState(sims.defaultSim);
  const [continueSteps, setContinueSteps] = useState(
    Math.min(remainingSteps ?? MAX_FORK_CONTINUE_STEPS, MAX_FORK_CONTINUE_STEPS),
  );
  const [state, setState] = useState<ForkState>({ status: 'editing' });
  const subscription = useRef<{ unsubscribe(): void } | null>(null);
  useEffect(() => () => subscription.current?.unsubscribe(), []);

  if (draft === null) {
    return <p className="muted">A message gets no environment answer; there is nothing to fork.</p>;
  }
  const checked = actionFromDraft(draft, action);
  const draftError = checked.ok ? null : { field: checked.field, message: checked.message };
  const simOptions = available.some((option) => option.spec === sim)
    ? available
    : [...available, { spec: sim, label: sim, description: 'custom spec' }];

  const fork = () => {
    if (!checked.ok) return;
    subscription.current?.unsubscribe();
    const startedAt = Date.now();
    setState({ status: 'forking', startedAt, done: 0, total: null });
    // A subscription rather than a mutation: a model or an endpoint can take a while per step, and
    // the server reports each simulated step as it lands.
    subscription.current = client.simulate.forkEvents.subscribe(
      { trajectoryId, step, action: checked.action, sim, continueSteps },
      {
        onData: (event) => {
          if (event.type === 'progress') {
            setState({ status: 'forking', startedAt, done: event.done, total: event.total });
            return;
          }
          setState({ status: 'done', fork: event.fork });
          // The fork's dataset is new or has grown: lists showing it must refetch.
          void queryClient.invalidateQueries({ queryKey: trpc.datasets.list.queryKey() });
          void queryClient.invalidateQueries({ queryKey: trpc.trajectories.list.queryKey() });
        },
        onError: (error) => setState({ status: 'error', message: messageOf(error) }),
      },
    );
  };

  return (
    <section className="panel fork-editor" data-testid="fork-editor" aria-label="What if">
      <header className="panel-header">
        <h3>What if… (step {step + 1})</h3>
        <button type="button" className="spacer-left" onClick={onClose}>
          Close
        </button>
      </header>
      <form
        className="panel-body fork-form"
        onSubmit={(event) => {
          event.preventDefault();
          fork();
        }}
      >
        <DraftFields draft={draft} error={draftError} onChange={setDraft} />
        <div className="fork-row">
          <label className="fork-field">
            Simulator
            <select
              aria-label="Fork simulator"
              value={sim}
              onChange={(event) => setSim(event.target.value)}
            >
              {simOptions.map((option) => (
                <option key={option.spec} value={option.spec} title={option.description}>
                  {option.label}
                </option>
              ))}
            </select>
          </label>
          <label className="fork-field">
            Continue steps
            <input
              type="number"
              aria-label="Continue steps"
              min={0}
              max={MAX_FORK_CONTINUE_STEPS}
              value={continueSteps}
              onChange={(event) => {
                const value = Math.trunc(Number(event.target.value));
                if (value >= 0) setContinueSteps(Math.min(value, MAX_FORK_CONTINUE_STEPS));
              }}
            />
          </label>
          <button
            type="submit"
            className="primary"
            data-testid="fork-submit"
            disabled={!checked.ok || state.status === 'forking'}
          >
            {state.status === 'forking' ? 'Forking…' : 'Fork'}
          </button>
        </div>
        <p className="muted fork-hint">
          The recorded actions after this step are kept; {sim} predicts every observation from the
          fork’s own history.
        </p>
        {sims.browserLeftOut !== null && (
          <p className="muted fork-hint" data-testid="fork-browser-note">
            {sims.browserLeftOut} is not offered: a fork is simulated and stored on the server, and
            that model runs in this browser (the server&rsquo;s bundled model, if it offers one, is
            the same model).
          </p>
        )}
        <div aria-live="polite" data-testid="fork-status" data-status={state.status}>
          {state.status === 'forking' && (
            <span className="spinner-text" role="status">
              <span className="spinner" aria-hidden="true" /> forking with {sim}:{' '}
              <span data-testid="fork-progress">
                {state.done} / {state.total ?? '…'}
              </span>{' '}
              observations simulated · <Elapsed startedAt={state.startedAt} />
            </span>
          )}
          {state.status === 'error' && (
            <span className="status-error" role="alert">
              fork failed: {state.message}
            </span>
          )}
          {state.status === 'done' && (
            <span>
              Forked:{' '}
              <Link
                to={{
                  page: 'replay',
                  datasetId: state.fork.datasetId,
                  trajectoryId: state.fork.trajectoryId,
                  step,
                }}
              >
                <span className="mono" data-testid="fork-link">
                  {state.fork.externalId}
                </span>
              </Link>{' '}
              <span className="muted">
                in {state.fork.datasetName}: {state.fork.steps} steps, {state.fork.simulated}{' '}
                simulated
                {state.fork.failed > 0 ? `, ${state.fork.failed} failed` : ''}
              </span>
            </span>
          )}
        </div>
      </form>
    </section>
  );
}
