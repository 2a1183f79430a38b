export type ReplayCommand = 'next' | 'previous' | 'first' | 'last' | 'toggle-play';

interface KeyPress {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
}

const COMMANDS: Record<string, ReplayCommand> = {
  j: 'next',
  ArrowDown: 'next',
  ArrowRight: 'next',
  k: 'previous',
  ArrowUp: 'previous',
  ArrowLeft: 'previous',
  g: 'first',
  Home: 'first',
  G: 'last',
  End: 'last',
  ' ': 'toggle-play',
};

/** The vim-like replay command for a key press; chords with Ctrl/Meta/Alt belong to the browser. */
export function replayCommandFor(press: KeyPress): ReplayCommand | null {
  if (press.ctrlKey || press.metaKey || press.altKey) return null;
  return Object.hasOwn(COMMANDS, press.key) ? (COMMANDS[press.key] ?? null) : null;
}

/** Where a navigation command moves the 0-based step index, clamped to the trajectory. */
export function stepAfter(command: ReplayCommand, index: number, total: number): number {
  if (total <= 0) return 0;
  const last = total - 1;
  switch (command) {
    case 'next':
      return Math.min(index + 1, last);
    case 'previous':
      return Math.max(index - 1, 0);
    case 'first':
      return 0;
    case 'last':
      return last;
    case 'toggle-play':
      return Math.min(Math.max(index, 0), last);
  }
}

/** Keys typed into a form field are text, not commands. */
export function isTypingTarget(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  return tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT';
}
