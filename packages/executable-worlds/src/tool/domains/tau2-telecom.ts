import type { JsonValue } from '@terrarium/schema';
import type { ToolHandlers, ToolState } from '../tool-state';
import { isObject, numberAt, stringArg, ToolError, type JsonObject } from './python-values';

// The agent-side tau2-bench telecom tools over db.toml (customers, lines, plans, devices, bills).
// The user's phone (the user simulator's tools: status bar, airplane mode…) is another state,
// in user_db.toml and the device simulator upstream: not modelled here.

/** The simulated "today" of the telecom tasks. */
export const TELECOM_TODAY = '2025-02-25';

/** The end of the billing cycle the telecom tasks are set in. */
export const TELECOM_CYCLE_END = '2025-02-28';

/** Tables in the order `get_details_by_id` looks an id up in. */
export const TELECOM_TABLES = ['customers', 'lines', 'plans', 'devices', 'bills'] as const;

function find(state: ToolState, table: string, field: string, value: string): JsonObject | null {
  for (const key of state.keys(table)) {
    const record = state.get(table, key);
    if (isObject(record) && record[field] === value) return record;
  }
  return null;
}

function lineOf(state: ToolState, customerId: string, lineId: string): JsonObject {
  const customer = state.get('customers', customerId);
  if (!isObject(customer)) throw new ToolError(`Customer with ID ${customerId} not found`);
  const line = state.get('lines', lineId);
  if (!isObject(line)) throw new ToolError(`Line with ID ${lineId} not found`);
  return structuredClone(line);
}

/** The one pending payment request (the telecom user has one phone, one customer account). */
function pendingRequest(
  state: ToolState,
): { customerId: string; billId: string; amount: JsonValue } | null {
  for (const customerId of state.keys('payment_requests')) {
    const request = state.get('payment_requests', customerId);
    if (isObject(request) && typeof request['bill_id'] === 'string')
      return { customerId, billId: request['bill_id'], amount: request['amount'] ?? 0 };
  }
  return null;
}

/** Python's `str(float)` for the quoted numbers get_data_usage prints. */
function floatText(value: JsonValue | undefined): string {
  const number = typeof value === 'number' ? value : 0;
  return Number.isInteger(number) ? `${number}.0` : String(number);
}

export const TAU2_TELECOM_TOOLS: ToolHandlers = {
  transfer_to_human_agents: { effect: 'read', run: () => 'Transfer successful' },
  get_customer_by_phone: {
    effect: 'read',
    run(state, args) {
      const phone = stringArg(args, 'phone_number');
      const customer = find(state, 'customers', 'phone_number', phone);
      if (customer !== null) return state.print(customer);
      // A line's number also finds its customer.
      for (const key of state.keys('customers')) {
        const record = state.get('customers', key);
        if (!isObject(record) || !Array.isArray(record['line_ids'])) continue;
        for (const lineId of record['line_ids']) {
          const line = typeof lineId === 'string' ? state.get('lines', lineId) : undefined;
          if (isObject(line) && line['phone_number'] === phone) return state.print(record);
        }
      }
      throw new ToolError(`Customer with phone number ${phone} not found`);
    },
  },
  get_details_by_id: {
    effect: 'read',
    run(state, args) {
      const id = stringArg(args, 'id');
      for (const table of TELECOM_TABLES) {
        const record = state.get(table, id);
        if (record !== undefined) return state.print(record);
      }
      throw new ToolError(`Unknown ID format or type: ${id}`);
    },
  },
  get_bills_for_customer: {
    effect: 'read',
    run(state, args) {
      const customerId = stringArg(args, 'customer_id');
      const customer = state.get('customers', customerId);
      if (!isObject(customer)) throw new ToolError(`Customer with ID ${customerId} not found`);
      const ids = Array.isArray(customer['bill_ids']) ? customer['bill_ids'] : [];
      const bills = ids.flatMap((id) => {
        const bill = typeof id === 'string' ? state.get('bills', id) : undefined;
        return isObject(bill) ? [bill] : [];
      });
      // Newest first, as the upstream tool sorts by issue date.
      bills.sort((a, b) => String(b['issue_date']).localeCompare(String(a['issue_date'])));
      return state.print(bills);
    },
  },
  send_payment_request: {
    effect: 'write',
    run(state, args) {
      const customerId = stringArg(args, 'customer_id');
      const billId = stringArg(args, 'bill_id');
      const bill = state.get('bills', billId);
      if (!isObject(bill) || bill['customer_id'] !== customerId)
        throw new ToolError(`Bill ${billId} not found for customer ${customerId}`);
      // The request reaches the user's phone, where make_payment settles it.
      state.put('payment_requests', customerId, {
        bill_id: billId,
        amount: bill['total_due'] ?? 0,
      });
      return `Payment request sent to the customer for bill ${billId}`;
    },
  },
  check_payment_request: {
    effect: 'read',
    run(state) {
      const request = pendingRequest(state);
      if (request === null) return 'You have no payment requests.';
      return `You have a payment request for bill ${request.billId} of ${floatText(request.amount)} USD.`;
    },
  },
  make_payment: {
    effect: 'write',
    run(state) {
      const request = pendingRequest(state);
      if (request === null) throw new ToolError('No payment request found');
      const bill = state.get('bills', request.billId);
      if (isObject(bill))
        state.put('bills', request.billId, { ...structuredClone(bill), status: 'Paid' });
      state.put('payment_requests', request.customerId, null);
      return `Payment of ${floatText(request.amount)} USD has been made for bill ${request.billId}.`;
    },
  },
  get_data_usage: {
    effect: 'read',
    run(state, args) {
      const line = lineOf(state, stringArg(args, 'customer_id'), stringArg(args, 'line_id'));
      const plan = state.get('plans', String(line['plan_id']));
      return state.print({
        line_id: line['line_id'] ?? null,
        data_used_gb: floatText(line['data_used_gb']),
        data_limit_gb: floatText(isObject(plan) ? plan['data_limit_gb'] : 0),
        data_refueling_gb: floatText(line['data_refueling_gb']),
        // The billing cycle of the simulated "today" (2025-02-25) in every recorded run.
        cycle_end_date: TELECOM_CYCLE_END,
      });
    },
  },
  enable_roaming: {
    effect: 'write',
    run(state, args) {
      const line = lineOf(state, stringArg(args, 'customer_id'), stringArg(args, 'line_id'));
      if (line['roaming_enabled'] === true) return 'Roaming was already enabled';
      line['roaming_enabled'] = true;
      state.put('lines', String(line['line_id']), line);
      return 'Roaming enabled successfully';
    },
  },
  refuel_data: {
    effect: 'write',
    run(state, args) {
      const line = lineOf(state, stringArg(args, 'customer_id'), stringArg(args, 'line_id'));
      const amount = numberAt(args['gb_amount'], 'gb_amount');
      const plan = state.get('plans', String(line['plan_id']));
      const price = isObject(plan) ? numberAt(plan['data_refueling_price_per_gb'], 'price') : 0;
      line['data_refueling_gb'] = numberAt(line['data_refueling_gb'], 'data_refueling_gb') + amount;
      state.put('lines', String(line['line_id']), line);
      return state.print({
        message: `Successfully added ${amount} GB of data for line ${line['line_id']} for $${(amount * price).toFixed(2)}`,
        new_data_refueling_gb: floatText(line['data_refueling_gb']),
        charge: floatText(amount * price),
      });
    },
  },
};

/**
 * The environment functions the telecom tasks' `initial_state.initialization_actions` call on the
 * agent side before an episode (the user-side ones set up the simulated phone: not modelled).
 * Not agent tools: named `init:<function>`, and never among the tools an agent is offered.
 */
export const TAU2_TELECOM_INITIALIZATION: ToolHandlers = {
  'init:set_data_usage': {
    effect: 'write',
    run(state, args) {
      const line = lineOf(state, stringArg(args, 'customer_id'), stringArg(args, 'line_id'));
      line['data_used_gb'] = numberAt(args['data_used_gb'], 'data_used_gb');
      state.put('lines', String(line['line_id']), line);
      return '';
    },
  },
  'init:enable_roaming': {
    effect: 'write',
    run(state, args) {
      const line = lineOf(state, stringArg(args, 'customer_id'), stringArg(args, 'line_id'));
      line['roaming_enabled'] = true;
      state.put('lines', String(line['line_id']), line);
      return '';
    },
  },
  'init:disable_roaming': {
    effect: 'write',
    run(state, args) {
      const line = lineOf(state, stringArg(args, 'customer_id'), stringArg(args, 'line_id'));
      line['roaming_enabled'] = false;
      state.put('lines', String(line['line_id']), line);
      return '';
    },
  },
  'init:suspend_line_for_overdue_bill': {
    effect: 'write',
    run(state, args) {
      // Reconstructed from what the runs show of the state it leaves: the suspended line (and
      // its contract end when it ended), and the overdue bill for one month of the plan.
      const customerId = stringArg(args, 'customer_id');
      const line = lineOf(state, customerId, stringArg(args, 'line_id'));
      const billId = stringArg(args, 'new_bill_id');
      const plan = state.get('plans', String(line['plan_id']));
      const price = isObject(plan) ? numberAt(plan['price_per_month'], 'price_per_month') : 0;
      line['status'] = 'Suspended';
      line['suspension_start_date'] = TELECOM_TODAY;
      if (args['contract_ended'] === true) line['contract_end_date'] = '2025-01-31';
      state.put('lines', String(line['line_id']), line);
      state.put('bills', billId, {
        bill_id: billId,
        customer_id: customerId,
        period_start: '2025-01-01',
        period_end: '2025-01-31',
        issue_date: '2025-01-01',
        total_due: price,
        due_date: '2025-01-15',
        line_items: [
          {
            description: `Charge for line ${line['line_id']}`,
            amount: price,
            date: TELECOM_TODAY,
            item_type: 'Charge',
          },
        ],
        status: 'Overdue',
      });
      const customer = state.get('customers', customerId);
      if (isObject(customer)) {
        const copy = structuredClone(customer);
        copy['bill_ids'] = [...(Array.isArray(copy['bill_ids']) ? copy['bill_ids'] : []), billId];
        state.put('customers', customerId, copy);
      }
      return '';
    },
  },
};
