import { describe, expect, it } from 'vitest';
import { highlightRanges, searchTerms, snippetOf } from './search';

describe('search snippets', () => {
  it('takes the terms a search asks for, not its exclusions', () => {
    expect(searchTerms('keyboard -mia_li_3668 "not found" /etc/passwd a or b')).toEqual([
      ['keyboard'],
      ['not', 'found'],
      ['etc', 'passwd'],
      ['a'],
      ['b'],
    ]);
  });

  it('highlights whole words and phrases across separators, in any case', () => {
    const text = 'Austinite lives in AUSTIN; cat /etc/passwd; get_user_details(mia)';
    const ranges = highlightRanges(text, searchTerms('austin passwd get_user_details'));
    expect(ranges.map(([from, to]) => text.slice(from, to))).toEqual([
      'AUSTIN',
      'passwd',
      'get_user_details',
    ]);
  });

  it('cuts an excerpt around the first match and shifts the ranges into it', () => {
    const text = `${'x '.repeat(100)}the gift card gc-1 has a balance of 60\n\n${'y '.repeat(100)}`;
    const snippet = snippetOf(text, searchTerms('balance'));
    expect(snippet.text.startsWith('…')).toBe(true);
    expect(snippet.text.endsWith('…')).toBe(true);
    expect(snippet.highlights.map(([from, to]) => snippet.text.slice(from, to))).toEqual([
      'balance',
    ]);
    // A few words before the match, from a word's start; more after it: the list's narrow
    // column shows the match.
    expect(snippet.text.startsWith('…gift card gc-1 has a balance of 60 y y')).toBe(true);
    expect(snippet.text.length).toBe(1 + 'gift card gc-1 has a balance'.length + 120 + 1);
    // Nothing to highlight (the index matched a form the pattern does not): the text's start.
    expect(snippetOf('short text', searchTerms('zzz'))).toEqual({
      text: 'short text',
      highlights: [],
    });
  });
});
