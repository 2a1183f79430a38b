import { cleanup, render } from '@testing-library/react';
import { terminalText } from '@terrarium/schema';
import { afterEach, describe, expect, it } from 'vitest';
import { ansiToLines } from './ansi-lines';
import { AnsiText } from './ansi-text';

afterEach(cleanup);

const ESC = '\u001b';

/** The visible text of each line. */
function text(content: string): string[] {
  return ansiToLines(content).map((line) => line.map((segment) => segment.text).join(''));
}

describe('AnsiText', () => {
  it('renders SGR colours as styled spans and drops the escape codes', () => {
    const { container } = render(
      <AnsiText content={`${ESC}[31merror:${ESC}[0m file not found\n${ESC}[1;32mok${ESC}[0m`} />,
    );
    const pre = container.querySelector('pre');
    expect(pre?.textContent).toBe('error: file not found\nok');
    const spans = [...container.querySelectorAll<HTMLElement>('.line-block span')];
    expect(spans.map((span) => span.textContent)).toEqual(['error:', 'ok']);
    expect(spans[0]?.style.color).toBe('rgb(187, 0, 0)');
    expect(spans[1]?.style.color).toBe('rgb(0, 187, 0)');
    expect(spans[1]?.style.fontWeight).toBe('bold');
  });

  it('shows what search indexes: no text from non-CSI escapes or colon-separated colours', () => {
    const content = `${ESC}(Bplain${ESC}[38:5:196mred${ESC}[m ${ESC}7saved${ESC}8`;
    const { container } = render(<AnsiText content={content} />);
    expect(container.querySelector('pre')?.textContent).toBe('plainred saved');
    expect(container.querySelector('pre')?.textContent).toBe(terminalText(content));
  });

  it('marks the words a search matched, whatever their case, in coloured and plain runs', () => {
    const { container } = render(
      <AnsiText
        content={`${ESC}[33;21mprivate argument is not set${ESC}[0m\nno Private Argument here`}
        marks={['private argument']}
      />,
    );
    expect(container.querySelector('pre')?.textContent).toBe(
      'private argument is not set\nno Private Argument here',
    );
    expect([...container.querySelectorAll('mark')].map((mark) => mark.textContent)).toEqual([
      'private argument',
      'Private Argument',
    ]);
  });

  it('shows markup in the output as text and creates no element from it', () => {
    const payload = '<img src=x onerror=alert(1)><script>alert(2)</script>';
    const { container } = render(<AnsiText content={`${ESC}[33m${payload}${ESC}[0m`} />);
    expect(container.querySelector('img')).toBeNull();
    expect(container.querySelector('script')).toBeNull();
    expect(container.querySelector('pre span')?.textContent).toBe(payload);
  });

  it('keeps colour across a newline and starts each line fresh', () => {
    expect(ansiToLines(`${ESC}[34ma\nb${ESC}[0m\nc`)).toEqual([
      [{ text: 'a', style: { color: 'rgb(0, 0, 187)' } }],
      [{ text: 'b', style: { color: 'rgb(0, 0, 187)' } }],
      [{ text: 'c', style: {} }],
    ]);
  });

  it('drops OSC 8 hyperlinks and window titles, keeping only the visible text', () => {
    const BEL = '\u0007';
    const content = `then ${ESC}]8;;javascript:alert(1)${ESC}\\osc link${ESC}]8;;${ESC}\\ and ${ESC}]0;title${BEL}done`;
    const { container } = render(<AnsiText content={content} />);
    expect(container.querySelector('pre')?.textContent).toBe('then osc link and done');
    expect(container.querySelector('a')).toBeNull();
  });

  it('overwrites as a terminal does: carriage return, backspace and cursor-left', () => {
    // A progress bar redrawn in place, then erased to the end of the line by ESC[K.
    expect(text('  0%\r 50%\r100% done\n')).toEqual(['100% done', '']);
    expect(text(`downloading 10%\r${ESC}[Kok`)).toEqual(['ok']);
    // Backspaces move back: "ab\bc" shows "ac"; a backspace at the line start stays at column 0.
    expect(text('ab\bc\n\bx')).toEqual(['ac', 'x']);
    // A spinner drawn with cursor-left sequences, and a move right that leaves a gap.
    expect(text(`wait |${ESC}[1D/${ESC}[1D-${ESC}[1D\\ done`)).toEqual(['wait \\ done']);
    expect(text(`a${ESC}[3Cb`)).toEqual(['a   b']);
    // Tabs go to the next multiple of 8; a bell and NUL have no glyph and show nothing.
    expect(text('ab\tc\u0007\u0000d')).toEqual(['ab      cd']);
    // Windows line endings are just line ends.
    expect(text('one\r\ntwo')).toEqual(['one', 'two']);
  });

  it('keeps the colours of overwritten text per character', () => {
    expect(ansiToLines(`xxxx\r${ESC}[32mok${ESC}[0m`)).toEqual([
      [
        { text: 'ok', style: { color: 'rgb(0, 187, 0)' } },
        { text: 'xx', style: {} },
      ],
    ]);
    const { container } = render(<AnsiText content={'50%\r\u0008100%'} />);
    expect(container.querySelector('pre')?.textContent).toBe('100%');
  });
});
