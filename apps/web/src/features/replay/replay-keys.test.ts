import { describe, expect, it } from 'vitest';
import { replayCommandFor, stepAfter, type ReplayCommand } from './replay-keys';

function press(
  key: string,
  modifiers: Partial<{ ctrlKey: boolean; metaKey: boolean; altKey: boolean }> = {},
) {
  return { key, ctrlKey: false, metaKey: false, altKey: false, ...modifiers };
}

function walk(keys: string[], start: number, total: number): number {
  let index = start;
  for (const key of keys) {
    const command = replayCommandFor(press(key));
    if (command) index = stepAfter(command, index, total);
  }
  return index;
}

describe('replay keys', () => {
  it('maps vim keys and arrows to commands', () => {
    const keys = ['j', 'ArrowDown', 'ArrowRight', 'k', 'ArrowUp', 'ArrowLeft', 'g', 'G', ' '];
    const commands: (ReplayCommand | null)[] = keys.map((key) => replayCommandFor(press(key)));
    expect(commands).toEqual([
      'next',
      'next',
      'next',
      'previous',
      'previous',
      'previous',
      'first',
      'last',
      'toggle-play',
    ]);
  });

  it('leaves browser chords and other keys alone', () => {
    expect(replayCommandFor(press('j', { ctrlKey: true }))).toBeNull();
    expect(replayCommandFor(press('G', { metaKey: true }))).toBeNull();
    expect(replayCommandFor(press('x'))).toBeNull();
    expect(replayCommandFor(press('toString'))).toBeNull();
  });

  it('steps within bounds: j stops at the last step, k at the first', () => {
    expect(walk(['j', 'j', 'j'], 0, 17)).toBe(3);
    expect(walk(['j', 'j', 'j', 'j'], 15, 17)).toBe(16);
    expect(walk(['k', 'k'], 1, 17)).toBe(0);
    expect(walk(['G'], 3, 17)).toBe(16);
    expect(walk(['G', 'k', 'g'], 3, 17)).toBe(0);
    expect(walk(['G', 'k'], 0, 17)).toBe(15);
  });

  it('stays at 0 in a trajectory without steps', () => {
    expect(walk(['j', 'G', 'k'], 0, 0)).toBe(0);
  });
});
