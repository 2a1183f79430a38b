function doNothing(): void {}

/**
 * A piece of work that reports as it goes, as an async iteration: every event `work` emits, in
 * order, then `last(result)`; a failure of `work` is thrown from the iteration. For tRPC
 * subscriptions, whose procedures are generators while the work underneath takes callbacks.
 */
export async function* eventStream<E, R>(
  work: (emit: (event: E) => void) => Promise<R>,
  last: (result: R) => E,
): AsyncGenerator<E> {
  const queue: E[] = [];
  let wake: () => void = doNothing;
  // Written by the callbacks below; an object, so that reads after an await are not narrowed away.
  const state: { finished: boolean; failure: { error: unknown } | null } = {
    finished: false,
    failure: null,
  };
  work((event) => {
    queue.push(event);
    wake();
  }).then(
    (result) => {
      queue.push(last(result));
      state.finished = true;
      wake();
    },
    (error: unknown) => {
      state.failure = { error };
      state.finished = true;
      wake();
    },
  );
  for (;;) {
    // Armed before the queue is drained, so an event arriving meanwhile is never missed.
    const next = new Promise<void>((resolve) => {
      wake = resolve;
    });
    while (queue.length > 0) {
      const event = queue.shift();
      if (event !== undefined) yield event;
    }
    if (state.finished) {
      if (state.failure !== null) throw state.failure.error;
      return;
    }
    await next;
  }
}
