import { describe, expect, it } from 'vitest';
import { terminalText } from './terminal-text';

const ESC = '\u001b';

describe('terminalText: what a terminal shows', () => {
  it('leaves text without control characters as it is (tabs and newlines included)', () => {
    const plain = 'a\tb\nc  d';
    expect(terminalText(plain)).toBe(plain);
  });

  it('drops colour, mode and character-set sequences, so words are not glued to them', () => {
    // SWE-agent's pip output (demo ctf__crypto__BabyTimeCapsule.traj, step 5).
    expect(terminalText(`${ESC}[33;21mprivate argument is not set${ESC}[0m`)).toBe(
      'private argument is not set',
    );
    expect(terminalText(`${ESC}[?25l${ESC}(Bhidden${ESC}[mcursor${ESC}7`)).toBe('hiddencursor');
  });

  it('drops OSC titles and hyperlinks but keeps the link text', () => {
    expect(
      terminalText(`${ESC}]0;title${ESC}\\${ESC}]8;;http://x${ESC}\\link${ESC}]8;;\u0007`),
    ).toBe('link');
  });

  it('plays backspaces, carriage returns and cursor moves as overwrites', () => {
    // pip's spinner: each frame is drawn, backed over and blanked, then `done` is written.
    expect(terminalText('Installing build dependencies ... -\b \b\\\b \bdone')).toBe(
      'Installing build dependencies ... done',
    );
    expect(terminalText('10%\r55%\r100%\nnext')).toBe('100%\nnext');
    expect(terminalText('a pty\r\nends lines\r\r\nso')).toBe('a pty\nends lines\nso');
    expect(terminalText(`abcdef${ESC}[3D${ESC}[KXY`)).toBe('abcXY');
    expect(terminalText(`abc${ESC}[2Kz`)).toBe('   z');
  });

  it('drops control characters without a glyph', () => {
    expect(terminalText('bell\u0007 nul\u0000 del\u007f')).toBe('bell nul del');
  });

  it('stops cursor moves at a screen edge, however large the count (review: a RangeError)', () => {
    expect(terminalText(`abc${ESC}[999999999999Dz`)).toBe('zbc');
    expect(terminalText(`x${ESC}[600000000Cy`)).toBe(`x${' '.repeat(999)}y`);
    // Moving right again and again only moves past the edge by what is written.
    expect(terminalText(`${ESC}[1000C.`.repeat(100))).toBe(`${' '.repeat(1000)}${'.'.repeat(100)}`);
  });

  it('leaves an unterminated OSC to one line: a bell further on swallows nothing', () => {
    expect(terminalText(`${ESC}]0;title\nkept line\u0007 and more`)).toBe(
      '0;title\nkept line and more',
    );
    expect(terminalText(`${ESC}]0;${'t'.repeat(5000)}\u0007after`)).toBe(
      `0;${'t'.repeat(5000)}after`,
    );
  });
});
