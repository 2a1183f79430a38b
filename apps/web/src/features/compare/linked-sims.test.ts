import { describe, expect, it } from 'vitest';
import { linkedSimsToRun } from './linked-sims';

describe('the simulators a Compare link runs as the page opens', () => {
  it('runs those the server offers and holds an endpoint the link alone names', () => {
    const trusted = new Set(['replay', 'retrieval', 'openai:http://127.0.0.1:8000/v1#wm']);
    expect(
      linkedSimsToRun(
        ['replay', 'openai:http://127.0.0.1:4924/v1#exfil', 'openai:http://127.0.0.1:8000/v1#wm'],
        trusted,
      ),
    ).toEqual({
      run: ['replay', 'openai:http://127.0.0.1:8000/v1#wm'],
      held: ['openai:http://127.0.0.1:4924/v1#exfil'],
    });
    expect(linkedSimsToRun(['retrieval'], trusted)).toEqual({ run: ['retrieval'], held: [] });
  });
});
