import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { LabelingItem } from '@terrarium/api';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { plural } from '../../app/format';
import { useSingleFlight } from '../../app/single-flight';
import { Link } from '../../app/link';
import { useTRPC, useTRPCClient } from '../../app/trpc';
import { CriteriaForm, type LabelDraft } from './criteria-form';
import { draftStorageKey, forgetDraft, loadDraft, saveDraft } from './label-drafts';
import { labelKeyAction, LABEL_KEYS, nextCriterionIndex } from './label-keys';
import { LabelingItemView } from './labeling-item-view';
import { partialLabelCheck } from './partial-label';
import './labeling.css';

const EMPTY_DRAFT: LabelDraft = { scores: {}, comment: '', flagged: false };

function draftOf(view: LabelingItem | null): LabelDraft {
  const own = view?.ownLabel;
  return own ? { scores: own.scores, comment: own.comment, flagged: own.flagged } : EMPTY_DRAFT;
}

/**
 * Grading one queue by keyboard. The server leases the item shown (`labels.next`); a heartbeat
 * keeps the lease while the page is open; going to another page of the app releases it. A reload
 * or a closed tab does not: the lease runs out on its own (the queue's lease time), and until then
 * `labels.next` gives the same labeler the same item back, draft and all. `←` walks back through
 * the items this labeler already labeled, to review or edit; `→` returns to the leased item.
 */
export function LabelQueuePage({ queueId }: { queueId: string }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const queue = useQuery(trpc.labels.queue.queryOptions({ queueId }));
  const whoami = useQuery(trpc.auth.whoami.queryOptions());
  const labels = useQuery(trpc.labels.labels.queryOptions({ queueId }));
  const [current, setCurrent] = useState<LabelingItem | null | undefined>(undefined);
  const [reviewOrdinal, setReviewOrdinal] = useState<number | null>(null);
  // The draft belongs to the item shown; another item starts from its own stored label (or empty).
  const [drafts, setDrafts] = useState<{ key: string; draft: LabelDraft }>({
    key: '',
    draft: EMPTY_DRAFT,
  });
  const [criterionIndex, setCriterionIndex] = useState(0);
  const [help, setHelp] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  // What the last "not scored" question was about (partialLabelCheck's askKey).
  const [partialAsked, setPartialAsked] = useState<string | null>(null);
  const commentRef = useRef<HTMLTextAreaElement>(null);

  const principal = whoami.data;
  const myId =
    principal === undefined
      ? null
      : principal.kind === 'user'
        ? principal.userId
        : principal.kind === 'program'
          ? 'program'
          : null;
  const ownOrdinals = (labels.data ?? [])
    .filter((label) => label.labelerId === myId)
    .map((label) => label.ordinal)
    .toSorted((a, b) => a - b);

  const review = useQuery({
    ...trpc.labels.labeledItem.queryOptions({ queueId, ordinal: reviewOrdinal ?? 0 }),
    enabled: reviewOrdinal !== null,
  });
  const shown: LabelingItem | null | undefined =
    reviewOrdinal === null ? current : (review.data ?? undefined);
  const shownKey = shown ? `${reviewOrdinal === null ? 'lease' : 'review'}:${shown.ordinal}` : '';
  // What was entered and not yet submitted is kept in this browser (a reload, a closed tab).
  const storageKey =
    shownKey === '' || myId === null
      ? null
      : draftStorageKey({ labeler: myId, queueId, item: shownKey });
  const stored = useMemo(
    () => (storageKey === null ? null : loadDraft(localStorage, storageKey)),
    [storageKey],
  );
  const restored = drafts.key !== shownKey && stored !== null;
  const draft =
    drafts.key === shownKey
      ? drafts.draft
      : (stored ?? draftOf(reviewOrdinal === null ? null : (shown ?? null)));
  const setDraft = useCallback(
    (update: LabelDraft | ((old: LabelDraft) => LabelDraft)) => {
      const changed = typeof update === 'function' ? update(draft) : update;
      setDrafts({ key: shownKey, draft: changed });
      if (storageKey !== null) saveDraft(localStorage, storageKey, changed);
    },
    [shownKey, draft, storageKey],
  );

  const next = useMutation(
    trpc.labels.next.mutationOptions({
      onSuccess: (view) => {
        setCurrent(view);
        setDrafts({ key: '', draft: EMPTY_DRAFT });
        setCriterionIndex(0);
      },
      onError: (error) => setMessage(error.message),
    }),
  );
  const refresh = useCallback(async () => {
    await queryClient.invalidateQueries({ queryKey: trpc.labels.labels.queryKey({ queueId }) });
    await queryClient.invalidateQueries({ queryKey: trpc.labels.queue.queryKey({ queueId }) });
  }, [queryClient, trpc, queueId]);
  const submit = useMutation(
    trpc.labels.submit.mutationOptions({
      onSuccess: async () => {
        setMessage('Submitted.');
        // The graded item leaves the screen at once: keys pressed before the next one arrives
        // must not land on a form that is already submitted.
        setCurrent(undefined);
        await refresh();
        next.mutate({ queueId });
      },
      onError: (error) => setMessage(error.message),
    }),
  );
  const edit = useMutation(
    trpc.labels.edit.mutationOptions({
      onSuccess: async () => {
        setMessage('Saved the edit.');
        await refresh();
        await queryClient.invalidateQueries({ queryKey: trpc.labels.labeledItem.queryKey() });
      },
      onError: (error) => setMessage(error.message),
    }),
  );
  const skip = useMutation(
    trpc.labels.skip.mutationOptions({
      onSuccess: () => {
        setMessage('Skipped.');
        setCurrent(undefined);
        next.mutate({ queueId });
      },
      onError: (error) => setMessage(error.message),
    }),
  );

  // The first lease, once.
  const { mutate: lease } = next;
  useEffect(() => {
    lease({ queueId });
  }, [lease, queueId]);

  // Heartbeat while the lease is held; release when the labeler moves to another page of the app.
  // Not on `pagehide`: a reload would let the item go to someone else (or to a late release after
  // the reloaded page had leased it again), and the labeler's draft with it.
  const leaseOrdinal = current?.lease?.ordinal ?? null;
  const leaseSeconds = queue.data?.leaseSeconds ?? 300;
  useEffect(() => {
    if (leaseOrdinal === null) return undefined;
    const timer = window.setInterval(
      () => {
        void client.labels.heartbeat
          .mutate({ queueId, ordinal: leaseOrdinal })
          .then((beat) => {
            if (beat.lost) setMessage('Your lease on this item expired; take the next one (→).');
          })
          .catch(() => setMessage('The server did not answer the heartbeat.'));
      },
      Math.max(2000, (leaseSeconds * 1000) / 3),
    );
    return () => {
      window.clearInterval(timer);
      void client.labels.release.mutate({ queueId, ordinal: leaseOrdinal }).catch(() => {});
    };
  }, [client, queueId, leaseOrdinal, leaseSeconds]);

  const criteria = useMemo(
    () => shown?.queue.criteria ?? queue.data?.criteria ?? [],
    [shown, queue.data],
  );

  // A second Enter or click while the first is on its way would submit the same item twice, and
  // show the refusal over the next item.
  const sending = useSingleFlight();
  const submitDraft = useCallback(() => {
    if (!shown) return;
    if (Object.values(draft.scores).every((value) => value === null)) {
      setMessage('Score at least one criterion first (a digit key, or click a point).');
      return;
    }
    const check = partialLabelCheck(
      criteria,
      draft.scores,
      `${shown.ordinal}:${reviewOrdinal ?? ''}`,
      partialAsked,
    );
    if (!check.send) {
      setPartialAsked(check.askKey);
      setMessage(check.message);
      return;
    }
    const editing = reviewOrdinal !== null ? shown.ownLabel : null;
    const held = shown.lease;
    if ((editing === null && held === null) || !sending.take()) return;
    const settled = {
      onSuccess: () => {
        if (storageKey !== null) forgetDraft(localStorage, storageKey);
      },
      onSettled: sending.release,
    };
    if (editing !== null) edit.mutate({ queueId, labelId: editing.id, ...draft }, settled);
    else if (held !== null) submit.mutate({ queueId, ordinal: held.ordinal, ...draft }, settled);
  }, [
    shown,
    draft,
    criteria,
    partialAsked,
    reviewOrdinal,
    edit,
    submit,
    queueId,
    sending,
    storageKey,
  ]);

  useEffect(() => {
    function onKey(event: KeyboardEvent) {
      const target = event.target;
      if (target instanceof HTMLTextAreaElement || target instanceof HTMLInputElement) {
        if (event.key === 'Escape') target.blur();
        return;
      }
      if (event.metaKey || event.ctrlKey || event.altKey) return;
      const action = labelKeyAction(event.key, { criteria, criterionIndex });
      if (action === null) return;
      event.preventDefault();
      switch (action.kind) {
        case 'score':
          setDraft((old) => ({
            ...old,
            scores: { ...old.scores, [action.criterion]: action.value },
          }));
          setCriterionIndex(nextCriterionIndex({ criteria, criterionIndex }));
          break;
        case 'criterion':
          setCriterionIndex(action.index);
          break;
        case 'submit':
          submitDraft();
          break;
        case 'skip':
          if (reviewOrdinal === null && current?.lease) {
            skip.mutate({ queueId, ordinal: current.lease.ordinal });
          }
          break;
        case 'flag':
          setDraft((old) => ({ ...old, flagged: !old.flagged }));
          break;
        case 'comment':
          commentRef.current?.focus();
          break;
        case 'back': {
          const before = ownOrdinals.filter((ordinal) =>
            reviewOrdinal === null ? true : ordinal < reviewOrdinal,
          );
          const previous = before.at(-1);
          if (previous !== undefined) {
            setReviewOrdinal(previous);
            setCriterionIndex(0);
            // "Saved the edit." was about the item left behind.
            setMessage(null);
          }
          break;
        }
        case 'forward': {
          if (reviewOrdinal === null) break;
          const after = ownOrdinals.find((ordinal) => ordinal > reviewOrdinal);
          setReviewOrdinal(after ?? null);
          setCriterionIndex(0);
          setMessage(null);
          break;
        }
        case 'help':
          setHelp((open) => !open);
          break;
        case 'close':
          setHelp(false);
          break;
      }
    }
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [
    criteria,
    criterionIndex,
    submitDraft,
    reviewOrdinal,
    current,
    skip,
    queueId,
    ownOrdinals,
    setDraft,
  ]);

  // A queue this caller may not work (or that is gone) is said once, not left loading.
  if (queue.isError) {
    return (
      <div className="page labeling-page">
        <h1>
          <Link to={{ page: 'labeling' }}>Labeling</Link> · queue {queueId}
        </h1>
        <p className="status status-error" role="alert" data-testid="labeling-refused">
          {queue.error.message}: it is not one of your queues, or it no longer exists.{' '}
          <Link to={{ page: 'labeling' }}>Your queues</Link>
        </p>
      </div>
    );
  }

  return (
    <div className="page labeling-page">
      <header className="page-header">
        <h1>
          <Link to={{ page: 'labeling' }}>Labeling</Link> · {queue.data?.name ?? `queue ${queueId}`}
        </h1>
        {queue.data?.blind && (
          <span className="badge" data-testid="blind-badge">
            blind
          </span>
        )}
        <span className="muted" data-testid="labeling-progress">
          {ownOrdinals.length} labeled by you ·{' '}
          {queue.data === undefined ? '… items' : plural(queue.data.items, 'item')}
        </span>
        <button type="button" className="button" onClick={() => setHelp((open) => !open)}>
          Keys (?)
        </button>
      </header>
      {message !== null && (
        <p className="status" role="status" data-testid="labeling-message">
          {message}
        </p>
      )}
      {help && (
        <aside
          className="panel labeling-help"
          aria-label="Keyboard help"
          data-testid="labeling-help"
        >
          <dl>
            {LABEL_KEYS.map((entry) => (
              <div key={entry.keys}>
                <dt className="mono">{entry.keys}</dt>
                <dd>{entry.what}</dd>
              </div>
            ))}
          </dl>
        </aside>
      )}
      {shown === undefined ? (
        <p className="status">Loading…</p>
      ) : shown === null ? (
        <div data-testid="labeling-done">
          <p className="status">
            No item is free for you in this queue now: you labeled or skipped the rest, or other
            labelers hold them (reload to check again). Thank you!
            {ownOrdinals.length > 0 && ' (← reviews your labels.)'}
          </p>
          <SkippedItems queueId={queueId} onTakenBack={() => next.mutate({ queueId })} />
        </div>
      ) : (
        <div className="labeling-layout">
          {restored && (
            <p className="status labeling-restored" role="status" data-testid="draft-restored">
              Restored what you entered here before; it is not submitted yet.
            </p>
          )}
          <LabelingItemView view={shown} />
          <CriteriaForm
            criteria={criteria}
            draft={draft}
            selected={criterionIndex}
            reviewing={reviewOrdinal !== null}
            onSelect={setCriterionIndex}
            onChange={setDraft}
            onSubmit={submitDraft}
            commentRef={commentRef}
            view={shown}
          />
        </div>
      )}
    </div>
  );
}

/**
 * The items this labeler skipped, with a way to take them back: a skip keeps an item from them for
 * good otherwise, and a queue with as many labelers as labels per item then never completes.
 */
function SkippedItems({ queueId, onTakenBack }: { queueId: string; onTakenBack: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const skips = useQuery(trpc.labels.skips.queryOptions({ queueId }));
  const takeBack = useMutation(
    trpc.labels.takeBackSkips.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.labels.skips.queryKey({ queueId }) });
        onTakenBack();
      },
    }),
  );
  const skipped = skips.data?.skipped ?? 0;
  if (skipped === 0) return null;
  return (
    <p data-testid="skipped-items">
      You skipped {plural(skipped, 'item')}: not offered to you again unless you take{' '}
      {skipped === 1 ? 'it' : 'them'} back.{' '}
      <button
        type="button"
        className="button"
        disabled={takeBack.isPending}
        onClick={() => takeBack.mutate({ queueId })}
      >
        Label skipped items
      </button>
    </p>
  );
}
