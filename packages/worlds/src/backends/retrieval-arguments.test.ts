import { isTransition, type Action } from '@terrarium/schema';
import { describe, expect, it } from 'vitest';
import { loadTrajectories, REAL_FILES } from '../testing/real-data';
import { predictionInputs } from '../trajectory-inputs';
import { buildRetrievalIndex, createRetrievalWorldModel } from './retrieval';

const airline = await loadTrajectories(REAL_FILES.tauBenchV1Airline);
// As in a what-if fork: the index holds every recording, the edited run's own parent included.
const index = buildRetrievalIndex(airline);
const model = createRetrievalWorldModel(index);

/** Every recorded `get_user_details` input of the dataset, with the user it asked for. */
const lookups = airline.flatMap((trajectory) =>
  [...predictionInputs(trajectory)].flatMap((input) => {
    const action = input.action;
    if (action.type !== 'tool_call' || action.name !== 'get_user_details') return [];
    const args = action.arguments;
    const user =
      typeof args === 'object' && args !== null && !Array.isArray(args) ? args['user_id'] : null;
    return typeof user === 'string' ? [{ input, user }] : [];
  }),
);

/** What the recordings answered when this user was looked up. */
function recorded(user: string): Set<string> {
  return new Set(
    lookups.filter((lookup) => lookup.user === user).map((lookup) => lookup.input.expected.content),
  );
}

function withUser(action: Action, user: string): Action {
  if (action.type !== 'tool_call') throw new Error('not a call');
  return { ...action, arguments: { user_id: user } };
}

describe('retrieval prefers recorded calls with the same arguments (real tau-bench airline)', () => {
  it('answers a fork that asks for sophia_silva_7557 with that user', async () => {
    const edited = lookups.find((lookup) => lookup.user === 'sophia_martin_4574');
    if (edited === undefined) throw new Error('no lookup of sophia_martin_4574');
    const { context, history, action } = edited.input;
    const unedited = await model.predict(context, history, action);
    expect(unedited.observation.content).toContain('"last_name": "Martin"');
    const prediction = await model.predict(context, history, withUser(action, 'sophia_silva_7557'));
    expect(prediction.observation.content).toContain(
      '"name": {"first_name": "Sophia", "last_name": "Silva"}',
    );
    expect([...recorded('sophia_silva_7557')]).toContain(prediction.observation.content);
  });

  it('answers every edited user lookup with the record of the user asked for', async () => {
    const users = [...new Set(lookups.map((lookup) => lookup.user))];
    expect(users.length).toBeGreaterThan(10);
    const wrong: string[] = [];
    for (const [i, lookup] of lookups.entries()) {
      // Each lookup asks for the next distinct user instead of its own.
      const other = users[(users.indexOf(lookup.user) + 1) % users.length] ?? lookup.user;
      const { context, history, action } = lookup.input;
      const prediction = await model.predict(context, history, withUser(action, other));
      if (!recorded(other).has(prediction.observation.content)) wrong.push(`${i}: asked ${other}`);
    }
    expect(wrong).toEqual([]);
  });

  it('keeps the transitions of the whole dataset in the index', () => {
    expect(index.size).toBe(
      airline.reduce((sum, t) => sum + t.steps.filter(isTransition).length, 0),
    );
  });
});
