import { cleanup, render } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { MarkedText } from './marked-text';

afterEach(cleanup);

function marked(text: string, words: readonly string[]): string[] {
  const { container } = render(
    <p>
      <MarkedText text={text} words={words} />
    </p>,
  );
  expect(container.textContent).toBe(text);
  return [...container.querySelectorAll('mark')].map((mark) => mark.textContent);
}

describe('MarkedText', () => {
  it('marks whole words, as search matched them, in any case', () => {
    // review: a substring matcher lit `attack` up inside `counterattack`.
    expect(marked('Counterattack! Attack at dawn', ['attack'])).toEqual(['Attack']);
  });

  it('marks a phrase whatever separates its words', () => {
    expect(marked('Login  incorrect\tand login-incorrect', ['Login incorrect'])).toEqual([
      'Login  incorrect',
      'login-incorrect',
    ]);
    expect(marked('cat /etc/passwd', ['etc/passwd'])).toEqual(['etc/passwd']);
  });

  it('marks nothing without words, and treats the words as text, not as a pattern', () => {
    expect(marked('a.b (c)', [])).toEqual([]);
    expect(marked('a.b (c) axb', ['a.b'])).toEqual(['a.b']);
  });
});
