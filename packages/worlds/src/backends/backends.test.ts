import type { Observation, Trajectory } from '@terrarium/schema';
import { beforeAll, describe, expect, it } from 'vitest';
import { actionHead } from '../action-text';
import { sharedDataAvailable, UNSHIPPED_DATA_REASON } from '@terrarium/schema/testing';
import { loadTrajectories, REAL_FILES } from '../testing/real-data';
import { predictionInputs, transitionsOf } from '../trajectory-inputs';
import type { Transition } from '../world-model';
import { createCacheThenModelWorldModel } from './cache-then-model';
import { createCacheRule, isCacheable } from './cacheable';
import { createHistoryKeyer, createReplayWorldModel, replayHistoryKey } from './replay';
import { buildRetrievalIndex, createRetrievalWorldModel, leaveOut } from './retrieval';

let retail: Trajectory[] = [];
let airline: Trajectory[] = [];
beforeAll(async () => {
  [retail, airline] = await Promise.all([
    loadTrajectories(REAL_FILES.tau2Retail),
    loadTrajectories(REAL_FILES.tauBenchV1Airline),
  ]);
});

/** Held out: every fifth trajectory of the file. */
function split(trajectories: Trajectory[]): { train: Trajectory[]; test: Trajectory[] } {
  return {
    train: trajectories.filter((_, index) => index % 5 !== 0),
    test: trajectories.filter((_, index) => index % 5 === 0),
  };
}

function failure(content: string): Observation {
  return { kind: 'error', content, callId: null };
}

describe('replay', () => {
  it('returns the exact recorded observation for every transition of tau2 retail', async () => {
    const replay = createReplayWorldModel(retail);
    let hits = 0;
    let exact = 0;
    for (const trajectory of retail) {
      for (const input of predictionInputs(trajectory)) {
        const prediction = await replay.predict(input.context, input.history, input.action);
        if (prediction.provenance.cache === 'hit') hits++;
        if (JSON.stringify(prediction.observation) === JSON.stringify(input.expected)) exact++;
      }
    }
    expect([retail.length, hits, exact, replay.size]).toEqual([40, 299, 299, 299]);
  });

  it('reports a miss for another history, another action or another task', async () => {
    const replay = createReplayWorldModel(retail);
    const trajectory = retail[0];
    if (trajectory === undefined) throw new Error('no retail trajectory');
    const inputs = [...predictionInputs(trajectory)];
    const second = inputs[1];
    if (second === undefined) throw new Error('the first retail trajectory has one transition');
    const changedHistory: Transition[] = second.history.map((transition) => ({
      ...transition,
      observation: { ...transition.observation, content: `${transition.observation.content} ` },
    }));
    if (second.action.type !== 'tool_call') throw new Error('retail calls are tool calls');
    const changedAction = { ...second.action, arguments: { user_id: 'nobody_0000' } };
    const misses = [
      await replay.predict(second.context, changedHistory, second.action),
      await replay.predict(second.context, second.history, changedAction),
      await replay.predict(
        { ...second.context, task: 'another task' },
        second.history,
        second.action,
      ),
    ];
    expect(misses.map((miss) => [miss.provenance.cache, miss.observation.content])).toEqual([
      ['miss', ''],
      ['miss', ''],
      ['miss', ''],
    ]);
    expect(replay.lookup(second.context, changedHistory, second.action)).toEqual({ hit: false });
    // Call ids differ in every run and do not count.
    const renamed = second.history.map((transition) => ({
      action:
        transition.action.type === 'tool_call'
          ? { ...transition.action, callId: 'other' }
          : transition.action,
      observation: { ...transition.observation, callId: 'other' },
    }));
    const hit = await replay.predict(second.context, renamed, second.action);
    expect([hit.provenance.cache, hit.observation]).toEqual(['hit', second.expected]);
    expect(hit.provenance.detail).toEqual({ trajectory: trajectory.externalId, stepIndex: 5 });
  });
});

describe('replay history keys', () => {
  it('hash each transition once per trajectory and equal the keys hashed from scratch', async () => {
    const telecom = await loadTrajectories(REAL_FILES.tau2Telecom);
    const keyer = createHistoryKeyer();
    let lookups = 0;
    let transitions = 0;
    let differing = 0;
    let fromScratch = 0;
    for (const trajectory of [...retail, ...airline, ...telecom]) {
      for (const input of predictionInputs(trajectory)) {
        lookups++;
        fromScratch += input.history.length;
        if (keyer(input.context, input.history) !== replayHistoryKey(input.context, input.history))
          differing++;
      }
      transitions += transitionsOf(trajectory).length;
    }
    // A trajectory's last transition is never part of a history: one fewer per trajectory that
    // has any transition.
    const trajectories = [...retail, ...airline, ...telecom].filter(
      (trajectory) => transitionsOf(trajectory).length > 0,
    ).length;
    expect({ lookups, differing, hashed: keyer.hashed }).toEqual({
      lookups: transitions,
      differing: 0,
      hashed: transitions - trajectories,
    });
    // Hashing every history from scratch cost 6.6 times as many transition hashes here (the
    // ratio grows with trajectory length: n²/2 against n).
    expect([fromScratch, keyer.hashed]).toEqual([12516, 1890]);
  });

  it('hashes again a transition reused under another history, and gives the same key', () => {
    const [first, second] = retail;
    if (first === undefined || second === undefined) throw new Error('two retail trajectories');
    const keyer = createHistoryKeyer();
    const shared = transitionsOf(first).map((entry) => entry.transition);
    const context = predictionInputs(first).next().value?.context;
    const other = predictionInputs(second).next().value?.context;
    if (context === undefined || other === undefined) throw new Error('no transitions');
    expect(keyer(context, shared)).toBe(replayHistoryKey(context, shared));
    expect(keyer(other, shared)).toBe(replayHistoryKey(other, shared));
    expect(keyer(context, shared.slice(1))).toBe(replayHistoryKey(context, shared.slice(1)));
    expect(keyer.hashed).toBe(3 * shared.length - 1);
  });
});

describe('retrieval', () => {
  it('answers held-out tau-bench v1 airline calls from the same tool', async () => {
    const { train, test } = split(airline);
    const model = createRetrievalWorldModel(buildRetrievalIndex(train));
    let total = 0;
    let sameTool = 0;
    let exact = 0;
    for (const trajectory of test) {
      for (const input of predictionInputs(trajectory)) {
        total++;
        const prediction = await model.predict(input.context, input.history, input.action);
        const neighbors = prediction.provenance.detail?.['neighbors'];
        const nearest = Array.isArray(neighbors) ? neighbors[0] : undefined;
        if (typeof nearest === 'object' && nearest !== null && 'sameTool' in nearest) {
          if (nearest.sameTool === true) sameTool++;
        }
        if (prediction.observation.content === input.expected.content) exact++;
      }
    }
    // Every held-out call uses a tool seen in training, so the nearest is always the same tool;
    // a third of the answers are the real one verbatim (same user or flight looked up again; 80
    // before calls with the same arguments were preferred to merely similar text, 83 since).
    expect([test.length, total, sameTool, exact]).toEqual([40, 236, 236, 83]);
  });

  it('leaves a trajectory out at query time, close to an index built without it', () => {
    const whole = buildRetrievalIndex(retail);
    let compared = 0;
    let sameTop = 0;
    let selfTop = 0;
    for (const held of retail.slice(0, 8)) {
      const without = buildRetrievalIndex(retail.filter((other) => other !== held));
      for (const input of predictionInputs(held)) {
        const args = [input.context, input.history, input.action, 3] as const;
        const left = whole.search(...args, { excludeTrajectory: held.externalId });
        expect(left.filter((n) => n.source.trajectory === held.externalId)).toEqual([]);
        const [rebuiltTop] = without.search(...args);
        if (JSON.stringify(left[0]?.source) === JSON.stringify(rebuiltTop?.source)) sameTop++;
        if (whole.search(...args)[0]?.source.trajectory === held.externalId) selfTop++;
        compared++;
      }
    }
    // Without leaving it out every step finds itself. Term statistics still count the left-out
    // trajectory, yet every top neighbour is the rebuilt index's (one of the 47 calls a tool only
    // its own trajectory calls: any tool may answer it, as in an index without it).
    expect([compared, sameTop, selfTop]).toEqual([47, 47, 47]);
  });

  it('leaves a task out: no other trial of it answers, and far fewer answers are the real one', () => {
    const index = buildRetrievalIndex(airline);
    const taskOf = new Map(airline.map((trajectory) => [trajectory.externalId, trajectory.task]));
    let total = 0;
    let exactTrajectoryOut = 0;
    let exactTaskOut = 0;
    for (const trajectory of airline) {
      for (const input of predictionInputs(trajectory)) {
        const args = [input.context, input.history, input.action, 3] as const;
        const trialsOut = index.search(...args, { excludeTrajectory: trajectory.externalId });
        const taskOut = index.search(...args, leaveOut(trajectory.externalId, trajectory.task));
        expect(taskOut.filter((n) => taskOf.get(n.source.trajectory) === trajectory.task)).toEqual(
          [],
        );
        total++;
        if (trialsOut[0]?.observation.content === input.expected.content) exactTrajectoryOut++;
        if (taskOut[0]?.observation.content === input.expected.content) exactTaskOut++;
      }
    }
    // Measured: 4 trials of each of 50 tasks. With only the trajectory left out, a sibling trial
    // answers 82% of the calls with the very observation being predicted; from other tasks, 38%.
    expect([airline.length, new Set(taskOf.values()).size, total]).toEqual([200, 50, 1164]);
    expect([exactTrajectoryOut, exactTaskOut]).toEqual([949, 441]);
  });

  it('gives the nearest neighbors best first and a miss when nothing is alike', async () => {
    const index = buildRetrievalIndex(retail);
    const context = { domain: 'tool' as const, task: null, systemPrompt: null, tools: [] };
    const action = {
      type: 'tool_call' as const,
      name: 'find_user_id_by_email',
      arguments: { email: 'isabella.lopez3271@example.com' },
      callId: 'mine',
    };
    const neighbors = index.search(context, [], action, 3);
    expect(neighbors.map((neighbor) => neighbor.sameHead)).toEqual([true, true, true]);
    expect(neighbors[0]?.observation.content).toBe('isabella_lopez_6490');
    const scores = neighbors.map((neighbor) => neighbor.score);
    expect(scores).toEqual(scores.toSorted((a, b) => b - a));
    const model = createRetrievalWorldModel(index);
    const prediction = await model.predict(context, [], action);
    expect(prediction.observation).toEqual({
      kind: 'text',
      content: 'isabella_lopez_6490',
      callId: 'mine',
    });
    for (const unlike of [
      { type: 'message' as const, text: 'find_user_id_by_email isabella' },
      { type: 'command' as const, command: 'zzz qqq', interpreter: 'bash' as const },
    ]) {
      const miss = await model.predict(context, [], unlike);
      expect([miss.provenance.cache, miss.observation.content]).toEqual(['miss', '']);
    }
  });
});

describe('cache-then-model', () => {
  it('serves seen calls from the recording and sends the others to the model', async () => {
    const { train, test } = split(airline);
    const model = createRetrievalWorldModel(buildRetrievalIndex(train));
    const cached = createCacheThenModelWorldModel({ trajectories: train, model });
    let exactHits = 0;
    let exactMisses = 0;
    for (const trajectory of test) {
      for (const input of predictionInputs(trajectory)) {
        const prediction = await cached.predict(input.context, input.history, input.action);
        if (prediction.observation.content !== input.expected.content) continue;
        if (prediction.provenance.cache === 'hit') exactHits++;
        else exactMisses++;
      }
    }
    // 57 held-out calls were made before with the same arguments, and got the same answer then.
    expect(cached.stats()).toEqual({ hits: 57, misses: 179, rejected: 0, size: 470 });
    // Retrieval behind the cache gets 26 more right (25 before preferring matching arguments).
    expect([exactHits, exactMisses]).toEqual([57, 26]);
  });

  it('never caches transient failures, and can keep what the model answered', async () => {
    expect(
      [
        'Error: Rate limit reached for requests',
        'HTTP 429 Too Many Requests',
        'upstream error: status 503',
        '502 Bad Gateway',
        'Error: connect ECONNREFUSED 10.0.0.1:443',
        'Error: order #W500 not found',
        'price: 503',
      ].map((content) => isCacheable(failure(content))),
    ).toEqual([false, false, false, false, false, true, true]);
    expect(createCacheRule({ errors: false })(failure('Error: order not found'))).toBe(false);

    const replay = createReplayWorldModel(retail);
    const cached = createCacheThenModelWorldModel({
      trajectories: [],
      model: replay,
      cacheModelResponses: true,
    });
    const trajectory = retail[0];
    if (trajectory === undefined) throw new Error('no retail trajectory');
    const [input] = predictionInputs(trajectory);
    if (input === undefined) throw new Error('no transition');
    const first = await cached.predict(input.context, input.history, input.action);
    const again = await cached.predict(input.context, [], input.action);
    expect([first.provenance.cache, again.provenance.cache]).toEqual(['miss', 'hit']);
    expect(again.observation).toEqual(input.expected);
    expect(again.provenance.detail).toEqual({ from: 'model' });
    expect(cached.stats()).toEqual({ hits: 1, misses: 1, rejected: 0, size: 1 });
  });
});

describe.skipIf(!sharedDataAvailable('intercode'))(
  `replay, retrieval and caching on InterCode ${UNSHIPPED_DATA_REASON}`,
  () => {
    let sql: Trajectory[] = [];
    beforeAll(async () => {
      sql = await loadTrajectories(REAL_FILES.intercodeSql);
    });

    it('keeps databases apart: every InterCode SQL transition replays its own answer', () => {
      const replay = createReplayWorldModel(sql);
      let exact = 0;
      let total = 0;
      for (const trajectory of sql) {
        for (const input of predictionInputs(trajectory)) {
          total++;
          const found = replay.lookup(input.context, input.history, input.action);
          if (found.hit && found.observation.content === input.expected.content) exact++;
        }
      }
      expect([total, exact]).toEqual([5867, 5867]);
    });

    it('prefers the same command, then the most similar arguments, on InterCode SQL', () => {
      const { train, test } = split(sql);
      const index = buildRetrievalIndex(train);
      let total = 0;
      let sameHead = 0;
      let exact = 0;
      for (const trajectory of test) {
        for (const input of predictionInputs(trajectory)) {
          total++;
          const [nearest] = index.search(input.context, input.history, input.action, 1);
          if (nearest?.sameHead === true) sameHead++;
          if (nearest?.observation.content === input.expected.content) exact++;
        }
      }
      // 648 exact before the same query text was preferred to similar words, 660 since.
      expect([index.size, total, sameHead, exact]).toEqual([4646, 1221, 1218, 660]);
    });

    it('finds the transient failures of InterCode bash: every timed-out command', async () => {
      const bash = await loadTrajectories(REAL_FILES.intercodeBash);
      const timedOut = bash
        .flatMap((trajectory) => transitionsOf(trajectory))
        .filter(({ transition }) => !isCacheable(transition.observation));
      expect(timedOut.map(({ transition }) => transition.observation.content)).toEqual(
        Array.from({ length: 9 }, () => 'Command timed out'),
      );
    });
  },
);

describe('the helpers that read a trajectory', () => {
  it('take only transitions as history, in order', () => {
    const trajectory = retail[0];
    if (trajectory === undefined) throw new Error('no retail trajectory');
    const inputs = [...predictionInputs(trajectory)];
    expect(
      inputs.map((input) => [input.stepIndex, input.history.length, actionHead(input.action)]),
    ).toEqual([
      [4, 0, 'find_user_id_by_email'],
      [5, 1, 'get_user_details'],
      [6, 2, 'get_order_details'],
      [11, 3, 'modify_pending_order_payment'],
    ]);
    expect(inputs[3]?.history.map((transition) => transition.observation.callId)).toEqual(
      trajectory.steps.slice(4, 7).map((step) => step.observation?.callId),
    );
  });
});
