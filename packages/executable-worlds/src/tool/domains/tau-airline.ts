import type { JsonValue } from '@terrarium/schema';
import type { ToolHandlers, ToolState } from '../tool-state';
import {
  arrayAt,
  calculate,
  isObject,
  numberAt,
  objectAt,
  stringArg,
  ToolError,
  type JsonObject,
} from './python-values';

// tau-bench (v1) airline tools over users / reservations / flights, ported from their documented
// behaviour (quirks included: the one-stop search reads the second leg's status from the first
// leg's date, and a next-day date is not zero-padded), checked against the recorded runs.

/** A flight without its per-date table, merged with one date's status, seats and prices. */
function onDate(flight: JsonObject, date: string): JsonObject | null {
  const dates = objectAt(flight['dates'], 'dates');
  const day = dates[date];
  if (!isObject(day)) return null;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(flight)) if (key !== 'dates') out[key] = value;
  return Object.assign(out, day);
}

function flights(state: ToolState): JsonObject[] {
  return state.keys('flights').flatMap((id) => {
    const flight = state.get('flights', id);
    return isObject(flight) ? [flight] : [];
  });
}

function dayStatus(flight: JsonObject, date: string): JsonValue | undefined {
  const day = objectAt(flight['dates'], 'dates')[date];
  return isObject(day) ? day['status'] : undefined;
}

function paymentMethods(user: JsonObject): JsonObject {
  return objectAt(user['payment_methods'], 'payment_methods');
}

export const TAU_AIRLINE_TOOLS: ToolHandlers = {
  calculate: { effect: 'read', run: (_state, args) => calculate(stringArg(args, 'expression')) },
  transfer_to_human_agents: { effect: 'read', run: () => 'Transfer successful' },
  think: { effect: 'read', run: () => '' },
  search_direct_flight: {
    effect: 'read',
    run(state, args) {
      const origin = stringArg(args, 'origin');
      const destination = stringArg(args, 'destination');
      const date = stringArg(args, 'date');
      const results = flights(state).flatMap((flight) =>
        flight['origin'] === origin &&
        flight['destination'] === destination &&
        dayStatus(flight, date) === 'available'
          ? [onDate(flight, date) ?? {}]
          : [],
      );
      return state.print(results);
    },
  },
  search_onestop_flight: {
    effect: 'read',
    run(state, args) {
      const origin = stringArg(args, 'origin');
      const destination = stringArg(args, 'destination');
      const date = stringArg(args, 'date');
      const all = flights(state);
      const results: JsonValue[] = [];
      for (const first of all) {
        if (first['origin'] !== origin) continue;
        for (const second of all) {
          if (second['destination'] !== destination || first['destination'] !== second['origin'])
            continue;
          const arrival = String(first['scheduled_arrival_time_est']);
          const date2 = arrival.includes('+1') ? `2024-05-${Number(date.slice(-2)) + 1}` : date;
          if (arrival > String(second['scheduled_departure_time_est'])) continue;
          if (dayStatus(first, date) !== 'available' || dayStatus(second, date2) !== 'available')
            continue;
          const leg1 = onDate(first, date) ?? {};
          leg1['date'] = date;
          // Upstream merges the second leg's data of the FIRST leg's date (a quirk kept as is).
          const leg2 = onDate(second, date) ?? onDate(second, date2) ?? {};
          leg2['date'] = date2;
          results.push([leg1, leg2]);
        }
      }
      return state.print(results);
    },
  },
  cancel_reservation: {
    effect: 'write',
    run(state, args) {
      const id = stringArg(args, 'reservation_id');
      const found = state.get('reservations', id);
      if (!isObject(found)) throw new ToolError('reservation not found');
      const reservation = structuredClone(found);
      const history = arrayAt(reservation['payment_history'], 'payment_history');
      const refunds = history.map((payment) => {
        const paid = objectAt(payment, 'payment');
        return {
          payment_id: paid['payment_id'] ?? null,
          amount: -numberAt(paid['amount'], 'amount'),
        };
      });
      reservation['payment_history'] = [...history, ...refunds];
      reservation['status'] = 'cancelled';
      state.put('reservations', id, reservation);
      return state.print(reservation);
    },
  },
  book_reservation: {
    effect: 'write',
    run(state, args) {
      const userId = stringArg(args, 'user_id');
      const found = state.get('users', userId);
      if (!isObject(found)) throw new ToolError('user not found');
      const user = structuredClone(found);
      // As upstream: at most three bookings per episode get fixed ids.
      let id = 'HATHAT';
      if (state.get('reservations', id) !== undefined) {
        id = 'HATHAU';
        if (state.get('reservations', id) !== undefined) id = 'HATHAV';
      }
      const cabin = stringArg(args, 'cabin');
      const passengers = arrayAt(args['passengers'], 'passengers');
      const payments = arrayAt(args['payment_methods'], 'payment_methods').map((p) =>
        objectAt(p, 'payment method'),
      );
      const legs = structuredClone(arrayAt(args['flights'], 'flights')).map((leg) =>
        objectAt(leg, 'flight'),
      );
      const nonfree = numberAt(args['nonfree_baggages'], 'nonfree_baggages');
      const reservation: JsonObject = {
        reservation_id: id,
        user_id: userId,
        origin: stringArg(args, 'origin'),
        destination: stringArg(args, 'destination'),
        flight_type: stringArg(args, 'flight_type'),
        cabin,
        flights: legs,
        passengers: args['passengers'] ?? [],
        payment_history: args['payment_methods'] ?? [],
        created_at: '2024-05-15T15:00:00',
        total_baggages: args['total_baggages'] ?? 0,
        nonfree_baggages: nonfree,
        insurance: stringArg(args, 'insurance'),
      };
      let total = 0;
      for (const leg of legs) {
        const number = String(leg['flight_number']);
        const flight = state.get('flights', number);
        if (!isObject(flight)) throw new ToolError(`flight ${number} not found`);
        const day = objectAt(flight['dates'], 'dates')[String(leg['date'])];
        if (!isObject(day))
          throw new ToolError(`flight ${number} not found on date ${leg['date']}`);
        if (day['status'] !== 'available')
          throw new ToolError(`flight ${number} not available on date ${leg['date']}`);
        if (numberAt(objectAt(day['available_seats'], 'seats')[cabin], 'seats') < passengers.length)
          throw new ToolError(`not enough seats on flight ${number}`);
        const price = numberAt(objectAt(day['prices'], 'prices')[cabin], 'price');
        leg['price'] = price;
        leg['origin'] = flight['origin'] ?? null;
        leg['destination'] = flight['destination'] ?? null;
        total += price * passengers.length;
      }
      if (reservation['insurance'] === 'yes') total += 30 * passengers.length;
      total += 50 * nonfree;
      const methods = paymentMethods(user);
      for (const payment of payments) {
        const paymentId = String(payment['payment_id']);
        const method = methods[paymentId];
        if (!isObject(method)) throw new ToolError(`payment method ${paymentId} not found`);
        if (
          (method['source'] === 'gift_card' || method['source'] === 'certificate') &&
          numberAt(method['amount'], 'amount') < numberAt(payment['amount'], 'amount')
        )
          throw new ToolError(`not enough balance in payment method ${paymentId}`);
      }
      const paid = payments.reduce((sum, p) => sum + numberAt(p['amount'], 'amount'), 0);
      if (paid !== total)
        throw new ToolError(
          `payment amount does not add up, total price is ${total}, but paid ${paid}`,
        );
      for (const payment of payments) {
        const paymentId = String(payment['payment_id']);
        const method = objectAt(methods[paymentId], 'payment method');
        if (method['source'] === 'gift_card')
          method['amount'] =
            numberAt(method['amount'], 'amount') - numberAt(payment['amount'], 'amount');
        else if (method['source'] === 'certificate') delete methods[paymentId];
      }
      user['reservations'] = [...arrayAt(user['reservations'], 'reservations'), id];
      state.put('reservations', id, reservation);
      state.put('users', userId, user);
      return state.print(reservation);
    },
  },
};

function reservationOf(state: ToolState, id: string): JsonObject {
  const found = state.get('reservations', id);
  if (!isObject(found)) throw new ToolError('reservation not found');
  return structuredClone(found);
}

/** The user's payment method for an update; certificates and short gift cards are refused. */
function updatePayment(user: JsonObject, paymentId: string, price: number): JsonObject {
  const method = paymentMethods(user)[paymentId];
  if (!isObject(method)) throw new ToolError('payment method not found');
  if (method['source'] === 'certificate')
    throw new ToolError('certificate cannot be used to update reservation');
  if (method['source'] === 'gift_card' && numberAt(method['amount'], 'amount') < price)
    throw new ToolError('gift card balance is not enough');
  return method;
}

function userOf(state: ToolState, id: string): JsonObject {
  const found = state.get('users', id);
  if (!isObject(found)) throw new ToolError('user not found');
  return structuredClone(found);
}

export const TAU_AIRLINE_UPDATES: ToolHandlers = {
  update_reservation_baggages: {
    effect: 'write',
    run(state, args) {
      const id = stringArg(args, 'reservation_id');
      const reservation = reservationOf(state, id);
      const nonfree = numberAt(args['nonfree_baggages'], 'nonfree_baggages');
      const price =
        50 * Math.max(0, nonfree - numberAt(reservation['nonfree_baggages'], 'nonfree_baggages'));
      const user = userOf(state, String(reservation['user_id']));
      const paymentId = stringArg(args, 'payment_id');
      const method = updatePayment(user, paymentId, price);
      reservation['total_baggages'] = args['total_baggages'] ?? null;
      reservation['nonfree_baggages'] = nonfree;
      if (method['source'] === 'gift_card') {
        method['amount'] = numberAt(method['amount'], 'amount') - price;
        state.put('users', String(user['user_id'] ?? reservation['user_id']), user);
      }
      if (price !== 0)
        reservation['payment_history'] = [
          ...arrayAt(reservation['payment_history'], 'payment_history'),
          { payment_id: paymentId, amount: price },
        ];
      state.put('reservations', id, reservation);
      return state.print(reservation);
    },
  },
  update_reservation_flights: {
    effect: 'write',
    run(state, args) {
      const id = stringArg(args, 'reservation_id');
      const reservation = reservationOf(state, id);
      const cabin = stringArg(args, 'cabin');
      const passengers = arrayAt(reservation['passengers'], 'passengers').length;
      const current = arrayAt(reservation['flights'], 'flights').map((f) => objectAt(f, 'flight'));
      const legs = structuredClone(arrayAt(args['flights'], 'flights')).map((f) =>
        objectAt(f, 'flight'),
      );
      let total = 0;
      for (const leg of legs) {
        // A leg the reservation already has, in the same cabin, keeps its price.
        const kept = current.find(
          (f) =>
            f['flight_number'] === leg['flight_number'] &&
            f['date'] === leg['date'] &&
            cabin === reservation['cabin'],
        );
        if (kept !== undefined) {
          total += numberAt(kept['price'], 'price') * passengers;
          leg['price'] = kept['price'] ?? null;
          leg['origin'] = kept['origin'] ?? null;
          leg['destination'] = kept['destination'] ?? null;
          continue;
        }
        const number = String(leg['flight_number']);
        const flight = state.get('flights', number);
        if (!isObject(flight)) throw new ToolError(`flight ${number} not found`);
        const day = objectAt(flight['dates'], 'dates')[String(leg['date'])];
        if (!isObject(day))
          throw new ToolError(`flight ${number} not found on date ${leg['date']}`);
        if (day['status'] !== 'available')
          throw new ToolError(`flight ${number} not available on date ${leg['date']}`);
        if (numberAt(objectAt(day['available_seats'], 'seats')[cabin], 'seats') < passengers)
          throw new ToolError(`not enough seats on flight ${number}`);
        leg['price'] = numberAt(objectAt(day['prices'], 'prices')[cabin], 'price');
        leg['origin'] = flight['origin'] ?? null;
        leg['destination'] = flight['destination'] ?? null;
        total += numberAt(leg['price'], 'price') * passengers;
      }
      total -= current.reduce((sum, f) => sum + numberAt(f['price'], 'price'), 0) * passengers;
      const user = userOf(state, String(reservation['user_id']));
      const paymentId = stringArg(args, 'payment_id');
      const method = updatePayment(user, paymentId, total);
      if (method['source'] === 'gift_card') {
        method['amount'] = numberAt(method['amount'], 'amount') - total;
        state.put('users', String(reservation['user_id']), user);
      }
      reservation['flights'] = legs;
      if (total !== 0)
        reservation['payment_history'] = [
          ...arrayAt(reservation['payment_history'], 'payment_history'),
          { payment_id: paymentId, amount: total },
        ];
      state.put('reservations', id, reservation);
      return state.print(reservation);
    },
  },
  update_reservation_passengers: {
    effect: 'write',
    run(state, args) {
      const id = stringArg(args, 'reservation_id');
      const reservation = reservationOf(state, id);
      const passengers = arrayAt(args['passengers'], 'passengers');
      if (passengers.length !== arrayAt(reservation['passengers'], 'passengers').length)
        throw new ToolError('number of passengers does not match');
      reservation['passengers'] = passengers;
      state.put('reservations', id, reservation);
      return state.print(reservation);
    },
  },
  send_certificate: {
    effect: 'write',
    run(state, args) {
      const userId = stringArg(args, 'user_id');
      const user = userOf(state, userId);
      const amount = args['amount'] ?? null;
      const methods = paymentMethods(user);
      for (const n of [3221322, 3221323, 3221324]) {
        const paymentId = `certificate_${n}`;
        if (methods[paymentId] !== undefined) continue;
        methods[paymentId] = { source: 'certificate', amount, id: paymentId };
        state.put('users', userId, user);
        return `Certificate ${paymentId} added to user ${userId} with amount ${typeof amount === 'number' ? amount : String(amount)}.`;
      }
      // Upstream returns None after three certificates.
      return 'None';
    },
  },
};

/** Every implemented airline tool (reads, bookings, cancellations and updates). */
export const TAU_AIRLINE_ALL: ToolHandlers = { ...TAU_AIRLINE_TOOLS, ...TAU_AIRLINE_UPDATES };
