import type { TaskInput } from './task';

const NOTES = 'alpha\nbravo\ncharlie\n';

/** Tasks on the scratch world that every server offers (examples, smoke tests, benchmarks). */
export const BUILTIN_TASKS: TaskInput[] = [
  {
    id: 'scratch-last-line',
    goal: 'Write the last line of /data/notes.txt into /data/last.txt, then submit.',
    world: { id: 'scratch', params: { extra: { '/data/notes.txt': NOTES } } },
    verifier: {
      checks: [{ check: { kind: 'file-equals', path: '/data/last.txt', content: 'charlie\n' } }],
    },
    oracle: ['cat /data/notes.txt', 'echo charlie > /data/last.txt', 'submit'],
    provenance: { source: 'builtin', trajectory: null, steps: [] },
  },
  {
    id: 'scratch-count-lines',
    goal: 'How many lines does /data/notes.txt have? Submit the number as the answer.',
    world: { id: 'scratch', params: { extra: { '/data/notes.txt': NOTES } } },
    verifier: { checks: [{ check: { kind: 'answer-equals', expected: '3', normalize: 'trim' } }] },
    oracle: ['wc -l /data/notes.txt', { tool: 'submit', arguments: { answer: '3' } }],
    provenance: { source: 'builtin', trajectory: null, steps: [] },
  },
];
