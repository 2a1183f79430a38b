import type { JsonValue } from '@terrarium/schema';
import type { ToolHandlers, ToolState } from '../tool-state';
import {
  arrayAt,
  calculate,
  countOf,
  isObject,
  numberAt,
  objectAt,
  round2,
  stringArg,
  stringsArg,
  ToolError,
  type JsonObject,
} from './python-values';

// The tau2-bench retail tools (users, orders, products), ported from their documented behaviour
// and checked against the recorded runs: every recorded answer is compared in the tests.

function order(state: ToolState, id: string): JsonObject {
  const found = state.get('orders', id);
  if (!isObject(found)) throw new ToolError('Order not found');
  return structuredClone(found);
}

function user(state: ToolState, id: string): JsonObject {
  const found = state.get('users', id);
  if (!isObject(found)) throw new ToolError('User not found');
  return structuredClone(found);
}

function paymentMethod(account: JsonObject, id: string): JsonObject {
  const methods = objectAt(account['payment_methods'], 'payment_methods');
  const method = methods[id];
  if (!isObject(method)) throw new ToolError('Payment method not found');
  return method;
}

const isGiftCard = (method: JsonObject) => method['source'] === 'gift_card';

function variant(state: ToolState, productId: string, variantId: string): JsonObject {
  const product = state.get('products', productId);
  if (!isObject(product)) throw new ToolError('Product not found');
  const found = objectAt(product['variants'], 'variants')[variantId];
  if (!isObject(found)) throw new ToolError('Variant not found');
  return found;
}

function items(record: JsonObject): JsonObject[] {
  return arrayAt(record['items'], 'items').map((item) => objectAt(item, 'item'));
}

function itemIds(record: JsonObject): string[] {
  return items(record).map((item) => String(item['item_id']));
}

/** Case- and accent-insensitive, as tau2 compares names and emails. */
function fold(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
}

function address(args: JsonObject): JsonObject {
  return {
    address1: stringArg(args, 'address1'),
    address2: stringArg(args, 'address2'),
    city: stringArg(args, 'city'),
    country: stringArg(args, 'country'),
    state: stringArg(args, 'state'),
    zip: stringArg(args, 'zip'),
  };
}

function saveOrder(state: ToolState, record: JsonObject): string {
  state.put('orders', String(record['order_id']), record);
  return state.print(record);
}

function addToBalance(
  state: ToolState,
  account: JsonObject,
  methodId: string,
  delta: number,
): void {
  const method = paymentMethod(account, methodId);
  method['balance'] = round2(numberAt(method['balance'], 'balance') + delta);
  state.put('users', String(account['user_id']), account);
}

export const TAU2_RETAIL_TOOLS: ToolHandlers = {
  calculate: { effect: 'read', run: (_state, args) => calculate(stringArg(args, 'expression')) },
  transfer_to_human_agents: { effect: 'read', run: () => 'Transfer successful' },
  list_all_product_types: {
    effect: 'read',
    run(state) {
      const names: [string, JsonValue][] = state.keys('products').flatMap((id) => {
        const product = state.get('products', id);
        return isObject(product) ? [[String(product['name']), product['product_id'] ?? null]] : [];
      });
      // json.dumps(sort_keys=True): by code point, as Python sorts str.
      names.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return state.print(Object.fromEntries(names));
    },
  },
  find_user_id_by_email: {
    effect: 'read',
    run(state, args) {
      const wanted = fold(stringArg(args, 'email'));
      for (const id of state.keys('users')) {
        const account = state.get('users', id);
        if (isObject(account) && fold(String(account['email'])) === wanted) return id;
      }
      throw new ToolError('User not found');
    },
  },
  find_user_id_by_name_zip: {
    effect: 'read',
    run(state, args) {
      const first = fold(stringArg(args, 'first_name'));
      const last = fold(stringArg(args, 'last_name'));
      const zip = stringArg(args, 'zip');
      for (const id of state.keys('users')) {
        const account = state.get('users', id);
        if (!isObject(account)) continue;
        const name = objectAt(account['name'], 'name');
        const home = objectAt(account['address'], 'address');
        if (
          fold(String(name['first_name'])) === first &&
          fold(String(name['last_name'])) === last &&
          home['zip'] === zip
        )
          return id;
      }
      throw new ToolError('User not found');
    },
  },
  get_item_details: {
    effect: 'read',
    run(state, args) {
      const id = stringArg(args, 'item_id');
      for (const productId of state.keys('products')) {
        const product = state.get('products', productId);
        const found = isObject(product) ? objectAt(product['variants'], 'variants')[id] : undefined;
        if (found !== undefined) return state.print(found);
      }
      throw new ToolError('Item not found');
    },
  },
  cancel_pending_order: {
    effect: 'write',
    run(state, args) {
      const record = order(state, stringArg(args, 'order_id'));
      if (record['status'] !== 'pending')
        throw new ToolError('Non-pending order cannot be cancelled');
      const reason = stringArg(args, 'reason');
      if (reason !== 'no longer needed' && reason !== 'ordered by mistake')
        throw new ToolError('Invalid reason');
      const history = arrayAt(record['payment_history'], 'payment_history').map((p) =>
        objectAt(p, 'payment'),
      );
      const refunds: JsonObject[] = [];
      for (const payment of history) {
        const methodId = String(payment['payment_method_id']);
        refunds.push({
          transaction_type: 'refund',
          amount: payment['amount'] ?? 0,
          payment_method_id: methodId,
        });
        const account = user(state, String(record['user_id']));
        if (isGiftCard(paymentMethod(account, methodId)))
          addToBalance(state, account, methodId, numberAt(payment['amount'], 'amount'));
      }
      record['status'] = 'cancelled';
      record['cancel_reason'] = reason;
      record['payment_history'] = [...history, ...refunds];
      return saveOrder(state, record);
    },
  },
  exchange_delivered_order_items: {
    effect: 'write',
    run(state, args) {
      const record = order(state, stringArg(args, 'order_id'));
      if (record['status'] !== 'delivered')
        throw new ToolError('Non-delivered order cannot be exchanged');
      const old = stringsArg(args, 'item_ids');
      const fresh = stringsArg(args, 'new_item_ids');
      const all = itemIds(record);
      for (const id of old)
        if (countOf(old, id) > countOf(all, id)) throw new ToolError(`Number of ${id} not found.`);
      if (old.length !== fresh.length)
        throw new ToolError('The number of items to be exchanged should match.');
      let diff = 0;
      for (const [i, id] of old.entries()) {
        const item = items(record).find((entry) => entry['item_id'] === id);
        if (item === undefined) throw new ToolError(`Item ${id} not found`);
        const next = variant(state, String(item['product_id']), fresh[i] ?? '');
        if (next['available'] !== true)
          throw new ToolError(`New item ${fresh[i]} not found or available`);
        diff += numberAt(next['price'], 'price') - numberAt(item['price'], 'price');
      }
      diff = round2(diff);
      const methodId = stringArg(args, 'payment_method_id');
      const method = paymentMethod(user(state, String(record['user_id'])), methodId);
      if (isGiftCard(method) && numberAt(method['balance'], 'balance') < diff)
        throw new ToolError('Insufficient gift card balance to pay for the price difference');
      record['status'] = 'exchange requested';
      record['exchange_items'] = old.toSorted();
      record['exchange_new_items'] = fresh.toSorted();
      record['exchange_payment_method_id'] = methodId;
      record['exchange_price_difference'] = diff;
      return saveOrder(state, record);
    },
  },
  modify_pending_order_address: {
    effect: 'write',
    run(state, args) {
      const record = order(state, stringArg(args, 'order_id'));
      if (!String(record['status']).includes('pending'))
        throw new ToolError('Non-pending order cannot be modified');
      record['address'] = address(args);
      return saveOrder(state, record);
    },
  },
  modify_pending_order_items: {
    effect: 'write',
    run(state, args) {
      const record = order(state, stringArg(args, 'order_id'));
      if (record['status'] !== 'pending')
        throw new ToolError('Non-pending order cannot be modified');
      const old = stringsArg(args, 'item_ids');
      const fresh = stringsArg(args, 'new_item_ids');
      const all = itemIds(record);
      for (const id of old)
        if (countOf(old, id) > countOf(all, id)) throw new ToolError(`${id} not found`);
      if (old.length !== fresh.length)
        throw new ToolError('The number of items to be exchanged should match');
      let diff = 0;
      let last: JsonObject | null = null;
      for (const [i, id] of old.entries()) {
        if (id === fresh[i])
          throw new ToolError('The new item id should be different from the old item id');
        const item = items(record).find((entry) => entry['item_id'] === id);
        if (item === undefined) throw new ToolError(`Item ${id} not found`);
        last = variant(state, String(item['product_id']), fresh[i] ?? '');
        if (last['available'] !== true)
          throw new ToolError(`New item ${fresh[i]} not found or available`);
        diff += numberAt(last['price'], 'price') - numberAt(item['price'], 'price');
      }
      const methodId = stringArg(args, 'payment_method_id');
      const account = user(state, String(record['user_id']));
      const method = paymentMethod(account, methodId);
      if (isGiftCard(method) && numberAt(method['balance'], 'balance') < diff)
        throw new ToolError('Insufficient gift card balance to pay for the new item');
      record['payment_history'] = [
        ...arrayAt(record['payment_history'], 'payment_history'),
        {
          transaction_type: diff > 0 ? 'payment' : 'refund',
          amount: Math.abs(diff),
          payment_method_id: methodId,
        },
      ];
      if (isGiftCard(method)) addToBalance(state, account, methodId, -diff);
      const list = items(record);
      for (const [i, id] of old.entries()) {
        const item = list.find((entry) => entry['item_id'] === id);
        if (item === undefined || last === null) throw new ToolError(`Item ${id} not found`);
        item['item_id'] = fresh[i] ?? id;
        // As upstream: every modified item takes the price and options of the LAST new variant.
        item['price'] = last['price'] ?? null;
        item['options'] = last['options'] ?? null;
      }
      record['items'] = list;
      record['status'] = 'pending (item modified)';
      return saveOrder(state, record);
    },
  },
  modify_pending_order_payment: {
    effect: 'write',
    run(state, args) {
      const record = order(state, stringArg(args, 'order_id'));
      if (!String(record['status']).includes('pending'))
        throw new ToolError('Non-pending order cannot be modified');
      const methodId = stringArg(args, 'payment_method_id');
      const account = user(state, String(record['user_id']));
      const method = paymentMethod(account, methodId);
      const history = arrayAt(record['payment_history'], 'payment_history').map((p) =>
        objectAt(p, 'payment'),
      );
      const first = history[0];
      if (history.length !== 1 || first === undefined || first['transaction_type'] !== 'payment')
        throw new ToolError('There should be exactly one payment for a pending order');
      const oldId = String(first['payment_method_id']);
      if (oldId === methodId)
        throw new ToolError('The new payment method should be different from the current one');
      const amount = numberAt(first['amount'], 'amount');
      if (isGiftCard(method) && numberAt(method['balance'], 'balance') < amount)
        throw new ToolError('Insufficient gift card balance to pay for the order');
      record['payment_history'] = [
        ...history,
        { transaction_type: 'payment', amount, payment_method_id: methodId },
        { transaction_type: 'refund', amount, payment_method_id: oldId },
      ];
      if (isGiftCard(method)) addToBalance(state, account, methodId, -amount);
      const refreshed = user(state, String(record['user_id']));
      if (isGiftCard(paymentMethod(refreshed, oldId)))
        addToBalance(state, refreshed, oldId, amount);
      return saveOrder(state, record);
    },
  },
  modify_user_address: {
    effect: 'write',
    run(state, args) {
      const account = user(state, stringArg(args, 'user_id'));
      account['address'] = address(args);
      state.put('users', String(account['user_id']), account);
      return state.print(account);
    },
  },
  return_delivered_order_items: {
    effect: 'write',
    run(state, args) {
      const record = order(state, stringArg(args, 'order_id'));
      if (record['status'] !== 'delivered')
        throw new ToolError('Non-delivered order cannot be returned');
      const methodId = stringArg(args, 'payment_method_id');
      const method = paymentMethod(user(state, String(record['user_id'])), methodId);
      const first = objectAt(arrayAt(record['payment_history'], 'payment_history')[0], 'payment');
      if (!isGiftCard(method) && methodId !== first['payment_method_id'])
        throw new ToolError('Payment method should be the original payment method');
      const returned = stringsArg(args, 'item_ids');
      const all = itemIds(record);
      for (const id of returned)
        if (countOf(returned, id) > countOf(all, id)) throw new ToolError('Some item not found');
      record['status'] = 'return requested';
      record['return_items'] = returned.toSorted();
      record['return_payment_method_id'] = methodId;
      return saveOrder(state, record);
    },
  },
};

/** What the retail read tools answer for an id the database does not have. */
export const TAU2_RETAIL_NOT_FOUND: Readonly<Record<string, string>> = {
  orders: 'Order not found',
  users: 'User not found',
  products: 'Product not found',
};
