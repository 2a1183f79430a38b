/// <reference types="node" />
import { readFileSync } from 'node:fs';
import type { Action, JsonValue, Trajectory } from '@terrarium/schema';
import { sharedDataPath } from '@terrarium/schema/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readTrajectoryFile } from '../testing/read-files';
import { domainOptions, tau2RetailDomain, type ToolDomain } from './domains/tool-domains';
import { measureToolReads } from './tool-sufficiency';
import { createToolWorld, recordedToolCalls } from './tool-world';

const reads = (n: number) => ({ reads: n, exact: n, mismatch: 0, fallback: 0 });
const writes = (n: number) => ({ writes: n, exact: n, mismatch: 0 });

function call(name: string, args: JsonValue): Action {
  return { type: 'tool_call', name, arguments: args, callId: null };
}

describe('tool world on tau2-bench retail (GPT-4.1, 40 simulations, db.json)', () => {
  let trajectories: Trajectory[] = [];
  let domain: ToolDomain;

  beforeAll(async () => {
    trajectories = await readTrajectoryFile(
      sharedDataPath('tau2-bench/results/gpt-4.1_retail_defautl_gpt-4.1_1trials.json'),
    );
    domain = tau2RetailDomain(
      readFileSync(sharedDataPath('tau2-bench/domains/retail/db.json'), 'utf8'),
      trajectories.flatMap(recordedToolCalls),
    );
  });

  it('learns the three record reads, with the null fields the order model adds', () => {
    expect(
      domain.mappings.map((m) => [m.tool, m.argument, m.table, m.checked, m.reproduced]),
    ).toEqual([
      ['get_order_details', 'order_id', 'orders', 110, 109],
      ['get_product_details', 'product_id', 'products', 38, 38],
      ['get_user_details', 'user_id', 'users', 39, 39],
    ]);
    expect(domain.mappings[0]?.renames).toEqual(
      [
        'cancel_reason',
        'exchange_items',
        'exchange_new_items',
        'exchange_payment_method_id',
        'exchange_price_difference',
        'return_items',
        'return_payment_method_id',
      ].map((insert) => ({ path: [], insert, before: null })),
    );
    expect([...(domain.format.floatKeys ?? [])].toSorted()).toEqual([
      'amount',
      'balance',
      'exchange_price_difference',
      'price',
    ]);
  });

  it('reproduces every recorded read (238 of 238) and write answer (61 of 61), writes applied in order', async () => {
    const report = await measureToolReads(
      trajectories,
      domain.database,
      domain.mappings,
      domainOptions(domain),
    );
    expect(report).toEqual({
      ...reads(238),
      byTool: {
        find_user_id_by_email: reads(8),
        get_user_details: reads(39),
        get_order_details: reads(110),
        find_user_id_by_name_zip: reads(36),
        transfer_to_human_agents: reads(2),
        get_product_details: reads(38),
        list_all_product_types: reads(2),
        calculate: reads(3),
      },
      applied: {
        ...writes(61),
        byTool: {
          modify_pending_order_payment: writes(1),
          return_delivered_order_items: writes(11),
          modify_pending_order_address: writes(7),
          exchange_delivered_order_items: writes(9),
          modify_pending_order_items: writes(21),
          modify_user_address: writes(4),
          cancel_pending_order: writes(8),
        },
      },
    });
  });

  it('a cancellation paid by gift card refunds the card at once: later reads show both', async () => {
    const db = domain.database;
    const Order = z.object({
      user_id: z.string(),
      status: z.string(),
      cancel_reason: z.string().nullable(),
      payment_history: z.array(
        z.object({
          transaction_type: z.string(),
          amount: z.number(),
          payment_method_id: z.string(),
        }),
      ),
    });
    const pending = Object.entries(db['orders'] ?? {}).find(([, order]) => {
      const parsed = Order.omit({ cancel_reason: true }).safeParse(order);
      return (
        parsed.success &&
        parsed.data.status === 'pending' &&
        parsed.data.payment_history.length === 1 &&
        parsed.data.payment_history[0]?.payment_method_id.startsWith('gift_card_')
      );
    });
    if (pending === undefined) throw new Error('no pending gift-card order in db.json');
    const [orderId] = pending;
    const world = createToolWorld('retail', db, domainOptions(domain));
    const before = Order.parse(
      JSON.parse(
        (await world.step(call('get_order_details', { order_id: orderId }))).observation.content,
      ),
    );
    const card = before.payment_history[0];
    if (card === undefined) throw new Error('no payment');
    const Balance = z.object({
      payment_methods: z.record(z.string(), z.object({ balance: z.number().optional() })),
    });
    const balance = async () =>
      Balance.parse(
        JSON.parse(
          (await world.step(call('get_user_details', { user_id: before.user_id }))).observation
            .content,
        ),
      ).payment_methods[card.payment_method_id]?.balance ?? NaN;
    const start = await balance();
    const cancelled = await world.step(
      call('cancel_pending_order', { order_id: orderId, reason: 'ordered by mistake' }),
    );
    const reread = await world.step(call('get_order_details', { order_id: orderId }));
    const after = Order.parse(JSON.parse(reread.observation.content));
    expect(reread.observation.content).toBe(cancelled.observation.content);
    expect([
      after.status,
      after.cancel_reason,
      after.payment_history.map((p) => p.transaction_type),
    ]).toEqual(['cancelled', 'ordered by mistake', ['payment', 'refund']]);
    expect(await balance()).toBe(Number((start + card.amount).toFixed(2)));
    // Cancelling again is refused, as the real tool does.
    expect(
      (
        await world.step(
          call('cancel_pending_order', { order_id: orderId, reason: 'ordered by mistake' }),
        )
      ).observation.content,
    ).toBe('Error: Non-pending order cannot be cancelled');
    expect(
      (await world.step(call('get_order_details', { order_id: '#W0000000' }))).observation.content,
    ).toBe('Error: Order not found');
  });
});
