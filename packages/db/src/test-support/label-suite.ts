import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LabelActor, LabelInput } from '../label-store';
import type { Store } from '../store';
import { buildBenchItem, buildBenchManifest } from '../testing';
import type { StoreHarness, StoreLocation } from './harnesses';

const ITEMS = Array.from({ length: 4 }, (_, n) => buildBenchItem(n));
const ANA: LabelActor = { id: 'u-ana', name: 'ana' };
const BO: LabelActor = { id: 'u-bo', name: 'bo' };
const CY: LabelActor = { id: 'u-cy', name: 'cy' };
const GOOD: LabelInput = { scores: { factuality: 4, realism: 5 }, comment: '', flagged: false };

/** The label store's contract, run against each backend. */
export function describeLabelStoreSuite(harness: StoreHarness): void {
  describe(`label store (${harness.name})`, () => {
    let location: StoreLocation;
    let store: Store;
    let runId: string;

    beforeAll(async () => {
      location = await harness.createLocation();
      store = await location.open();
      await store.createBench(buildBenchManifest('labels', ITEMS), ITEMS);
      const run = await store.createBenchRun({
        bench: 'labels',
        sims: ['replay'],
        judge: null,
        mode: { kind: 'open' },
        split: 'test',
      });
      runId = run.id;
    }, 60_000);
    afterAll(async () => {
      await store.close();
      await location.dispose();
    });

    async function newQueue(labelsPerItem: number, itemIds = ITEMS.map((item) => item.id)) {
      return store.createLabelQueue({
        name: `q${labelsPerItem}`,
        runId,
        sim: 'replay',
        selection: { kind: 'all' },
        labelsPerItem,
        blind: true,
        criteria: [{ id: 'factuality', text: 'Facts match', min: 1, max: 5, weight: 1 }],
        ruleSet: null,
        leaseSeconds: 60,
        labelers: null,
        createdBy: 'u-res',
        itemIds,
      });
    }

    it('leases each item to one labeler at a time and resumes the own lease', async () => {
      const queue = await newQueue(2);
      expect(queue).toMatchObject({ items: 4, labels: 0, completeItems: 0, labelsPerItem: 2 });
      const ana = await store.leaseNextItem(queue.id, ANA);
      const bo = await store.leaseNextItem(queue.id, BO);
      expect(ana?.itemId).toBe('item-0');
      expect(bo?.itemId).toBe('item-1');
      // A second request by the same labeler returns the lease it already holds.
      expect((await store.leaseNextItem(queue.id, ANA))?.ordinal).toBe(0);
      const states = await store.labelQueueItems(queue.id);
      expect(states.map((state) => state.leasedBy)).toEqual(['u-ana', 'u-bo', null, null]);
    });

    it('grants no item twice when many labelers race for leases and submit at once', async () => {
      const queue = await newQueue(3);
      const labelers = Array.from({ length: 8 }, (_, n) => ({ id: `u-${n}`, name: `l${n}` }));
      const held = new Map<number, string>();
      const doubled: string[] = [];
      async function work(labeler: LabelActor): Promise<number> {
        let given = 0;
        for (;;) {
          const lease = await store.leaseNextItem(queue.id, labeler);
          if (lease === null) {
            // No item is free for this labeler right now. Others may still hold leases on items
            // it has not labeled (on PostgreSQL a row being leased at this instant is skipped
            // too), so it asks again, as the labeling page does, until none is left for it.
            if (!(await itemsLeftFor(queue.id, labeler.id))) return given;
            await new Promise((resolve) => setTimeout(resolve, 5));
            continue;
          }
          const other = held.get(lease.ordinal);
          if (other !== undefined) doubled.push(`${lease.ordinal}: ${other} and ${labeler.id}`);
          held.set(lease.ordinal, labeler.id);
          // Others lease while this one works; the holder is cleared just before the submit that
          // releases it, so a second grant of the same item in between is seen.
          expect(await store.renewLease(queue.id, lease.ordinal, labeler.id)).not.toBeNull();
          held.delete(lease.ordinal);
          const outcome = await store.submitLabel(queue.id, lease.ordinal, labeler, GOOD);
          if (!outcome.ok) throw new Error(`${labeler.id} lost item ${lease.ordinal}`);
          given += 1;
        }
      }
      async function itemsLeftFor(queueId: string, labelerId: string): Promise<boolean> {
        const items = await store.labelQueueItems(queueId);
        const own = new Set(
          (await store.listLabels(queueId, { labelerId })).map((label) => label.ordinal),
        );
        return items.some((item) => item.labelCount < 3 && !own.has(item.ordinal));
      }
      const given = await Promise.all(labelers.map(work));
      expect(doubled).toEqual([]);
      expect(given.reduce((a, b) => a + b, 0)).toBe(ITEMS.length * 3);
      const items = await store.labelQueueItems(queue.id);
      expect(items.map((item) => item.labelCount)).toEqual([3, 3, 3, 3]);
      const labels = await store.listLabels(queue.id);
      expect(new Set(labels.map((label) => `${label.ordinal}/${label.labelerId}`)).size).toBe(12);
    });

    it('counts a label only for the lease holder, and at most N per item', async () => {
      const queue = await newQueue(2);
      const lease = await store.leaseNextItem(queue.id, ANA);
      expect(lease?.ordinal).toBe(0);
      expect(await store.submitLabel(queue.id, 0, BO, GOOD)).toEqual({
        ok: false,
        reason: 'no-lease',
      });
      const submitted = await store.submitLabel(queue.id, 0, ANA, GOOD);
      expect(submitted.ok && submitted.label.scores).toEqual({ factuality: 4, realism: 5 });
      expect(await store.submitLabel(queue.id, 0, ANA, GOOD)).toEqual({
        ok: false,
        reason: 'already-labeled',
      });
      // Ana labeled item 0, so her next lease is item 1; Bo still gets item 0.
      expect((await store.leaseNextItem(queue.id, ANA))?.ordinal).toBe(1);
      expect((await store.leaseNextItem(queue.id, BO))?.ordinal).toBe(0);
      expect((await store.submitLabel(queue.id, 0, BO, GOOD)).ok).toBe(true);
      // Item 0 has its two labels: Cy never sees it.
      expect((await store.leaseNextItem(queue.id, CY))?.ordinal).toBe(2);
      const items = await store.labelQueueItems(queue.id);
      expect(items.map((item) => item.labelCount)).toEqual([2, 0, 0, 0]);
      expect((await store.getLabelQueue(queue.id))?.completeItems).toBe(1);
    });

    it('hands an expired lease to the next labeler and refuses the old holder', async () => {
      const queue = await newQueue(1, ['item-0']);
      expect((await store.leaseNextItem(queue.id, ANA))?.ordinal).toBe(0);
      expect(await store.leaseNextItem(queue.id, BO)).toBeNull();
      // The store's own connection (the job queue's access path) ages the lease without waiting.
      await store.jobDb().executeSql(
        `UPDATE label_queue_items SET lease_expires_at = now() - interval '1 second'
       WHERE queue_id = $1::bigint`,
        [queue.id],
      );
      expect((await store.leaseNextItem(queue.id, BO))?.ordinal).toBe(0);
      expect(await store.renewLease(queue.id, 0, ANA.id)).toBeNull();
      expect(await store.submitLabel(queue.id, 0, ANA, GOOD)).toEqual({
        ok: false,
        reason: 'no-lease',
      });
      expect(await store.renewLease(queue.id, 0, BO.id)).not.toBeNull();
      expect((await store.submitLabel(queue.id, 0, BO, GOOD)).ok).toBe(true);
      expect(await store.leaseNextItem(queue.id, CY)).toBeNull();
    });

    it('never offers a skipped item again to the one who skipped, and releases on leave', async () => {
      const queue = await newQueue(1, ['item-0', 'item-1']);
      await store.leaseNextItem(queue.id, ANA);
      expect(await store.skipItem(queue.id, 0, ANA.id)).toBe(true);
      expect((await store.leaseNextItem(queue.id, ANA))?.ordinal).toBe(1);
      expect(await store.releaseLease(queue.id, 1, ANA.id)).toBe(true);
      expect(await store.releaseLease(queue.id, 1, ANA.id)).toBe(false);
      expect((await store.leaseNextItem(queue.id, BO))?.ordinal).toBe(0);
    });

    it('releases every lease of a labeler who logs out, and no one else’s', async () => {
      // Two labelers no other test leases with, so the counts are this test's alone.
      const dee: LabelActor = { id: 'u-dee', name: 'dee' };
      const eli: LabelActor = { id: 'u-eli', name: 'eli' };
      const first = await newQueue(1, ['item-0', 'item-1']);
      const second = await newQueue(1, ['item-0']);
      await store.leaseNextItem(first.id, dee);
      await store.leaseNextItem(second.id, dee);
      await store.leaseNextItem(first.id, eli);
      expect(await store.releaseLeasesOf(dee.id)).toBe(2);
      expect(await store.releaseLeasesOf(dee.id)).toBe(0);
      // Dee's items are offered again at once; Eli still holds his.
      expect((await store.leaseNextItem(first.id, CY))?.ordinal).toBe(0);
      expect((await store.leaseNextItem(second.id, CY))?.ordinal).toBe(0);
      expect(await store.renewLease(first.id, 1, eli.id)).not.toBeNull();
    });

    it('keeps every edit with who made it, and adjudications apart from labels', async () => {
      const queue = await newQueue(1, ['item-0']);
      await store.leaseNextItem(queue.id, ANA);
      const submitted = await store.submitLabel(queue.id, 0, ANA, GOOD);
      if (!submitted.ok) throw new Error('submit refused');
      expect(
        await store.editLabel(queue.id, submitted.label.id, BO, { ...GOOD, comment: 'not mine' }),
      ).toBeNull();
      const edited = await store.editLabel(queue.id, submitted.label.id, ANA, {
        scores: { factuality: 2, realism: 5 },
        comment: 'the order id is wrong',
        flagged: true,
      });
      expect(edited).toMatchObject({ scores: { factuality: 2, realism: 5 }, flagged: true });
      const history = await store.labelHistory(submitted.label.id);
      expect(history.map((event) => [event.action, event.actorName, event.scores])).toEqual([
        ['create', 'ana', { factuality: 4, realism: 5 }],
        ['edit', 'ana', { factuality: 2, realism: 5 }],
      ]);
      await store.adjudicate(queue.id, 0, 'factuality', 3, 'first pass', { id: 'r', name: 'res' });
      await store.adjudicate(queue.id, 0, 'factuality', 2, 'ana is right', {
        id: 'r',
        name: 'res',
      });
      const adjudications = await store.listAdjudications(queue.id);
      expect(adjudications.map((a) => [a.itemId, a.criterion, a.value, a.comment])).toEqual([
        ['item-0', 'factuality', 2, 'ana is right'],
      ]);
      expect((await store.listLabels(queue.id)).map((label) => label.scores)).toEqual([
        { factuality: 2, realism: 5 },
      ]);
    });

    it('edits a label only in its own queue, changing the criteria named and keeping the rest', async () => {
      const own = await newQueue(1, ['item-1']);
      const other = await newQueue(1, ['item-1']);
      await store.leaseNextItem(own.id, ANA);
      const submitted = await store.submitLabel(own.id, 0, ANA, {
        scores: { factuality: 4, realism: 5 },
        comment: 'ids match',
        flagged: true,
      });
      if (!submitted.ok) throw new Error('submit refused');
      const before = await store.listLabels(own.id);

      // Named under another queue, by its owner: nothing is written, not even to the history.
      expect(
        await store.editLabel(other.id, submitted.label.id, ANA, { scores: { factuality: 1 } }),
      ).toBeNull();
      expect(await store.listLabels(own.id)).toEqual(before);
      expect((await store.labelHistory(submitted.label.id)).map((event) => event.action)).toEqual([
        'create',
      ]);

      const edited = await store.editLabel(own.id, submitted.label.id, ANA, {
        scores: { factuality: 2, realism: null },
      });
      expect(edited && [edited.scores, edited.comment, edited.flagged]).toEqual([
        { factuality: 2, realism: null },
        'ids match',
        true,
      ]);
      const unflagged = await store.editLabel(own.id, submitted.label.id, ANA, {
        scores: {},
        flagged: false,
      });
      expect(unflagged && [unflagged.scores, unflagged.comment, unflagged.flagged]).toEqual([
        { factuality: 2, realism: null },
        'ids match',
        false,
      ]);
      // The history keeps each label the edits left behind, not the fragments sent.
      const history = await store.labelHistory(submitted.label.id);
      expect(history.map((event) => [event.action, event.scores, event.flagged])).toEqual([
        ['create', { factuality: 4, realism: 5 }, true],
        ['edit', { factuality: 2, realism: null }, true],
        ['edit', { factuality: 2, realism: null }, false],
      ]);
    });

    it('imports labels done elsewhere, replacing a repeated (item, labeler)', async () => {
      const queue = await newQueue(2, ['item-0', 'item-1']);
      const first = await store.importLabels(queue.id, [
        {
          itemId: 'item-0',
          labelerName: 'ext',
          scores: { factuality: 1 },
          comment: '',
          flagged: false,
        },
        {
          itemId: 'item-9',
          labelerName: 'ext',
          scores: { factuality: 1 },
          comment: '',
          flagged: false,
        },
      ]);
      expect(first).toEqual({ imported: 1, unknownItems: ['item-9'] });
      await store.importLabels(queue.id, [
        {
          itemId: 'item-0',
          labelerName: 'ext',
          scores: { factuality: 5 },
          comment: 'x',
          flagged: false,
        },
      ]);
      const labels = await store.listLabels(queue.id);
      expect(labels.map((label) => [label.labelerId, label.origin, label.scores])).toEqual([
        ['import:ext', 'import', { factuality: 5 }],
      ]);
      expect((await store.labelQueueItems(queue.id)).map((item) => item.labelCount)).toEqual([
        1, 0,
      ]);
    });
  });
}
