import { describe, expect, it } from 'vitest';
import { otherDomainNote } from './domain-note';

describe('otherDomainNote', () => {
  it('counts the items of other domains among all, before a queue is made and after', () => {
    expect(otherDomainNote('default-tool', 'tool', { tool: 8, terminal: 2 }, 'run')).toBe(
      'default-tool is written for tool items, but 2 of the 10 items in the run are terminal items: its criteria may not mean there what they intend.',
    );
    expect(
      otherDomainNote('default-tool', 'tool', { tool: 1, terminal: 1, swe: 2 }, 'queued'),
    ).toBe(
      'default-tool is written for tool items, but 3 of the 4 queued items are swe or terminal items: its criteria may not mean there what they intend.',
    );
  });

  it('says "all" and "the" when no item is of the domain, and nothing when every one is', () => {
    expect(otherDomainNote('default-tool', 'tool', { terminal: 10 }, 'run')).toBe(
      'default-tool is written for tool items, but all 10 items in the run are terminal items: its criteria may not mean there what they intend.',
    );
    expect(otherDomainNote('default-tool', 'tool', { terminal: 1 }, 'queued')).toBe(
      'default-tool is written for tool items, but the queued item is a terminal item: its criteria may not mean there what they intend.',
    );
    expect(otherDomainNote('default-tool', 'tool', { tool: 5, terminal: 0 }, 'queued')).toBe(null);
    expect(otherDomainNote('default-tool', 'tool', {}, 'run')).toBe(null);
  });
});
