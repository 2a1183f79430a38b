import { useEffect, useEffectEvent } from 'react';
import { isTypingTarget, replayCommandFor, type ReplayCommand } from './replay-keys';

/** Listens for replay keys on the window while mounted, ignoring keys typed into form fields. */
export function useReplayKeyboard(onCommand: (command: ReplayCommand) => void): void {
  const runCommand = useEffectEvent(onCommand);
  useEffect(() => {
    function onKeyDown(event: KeyboardEvent) {
      if (event.defaultPrevented || isTypingTarget(event.target)) return;
      const command = replayCommandFor(event);
      if (command === null) return;
      // Arrows and space would otherwise scroll the page, and space would press a focused button.
      event.preventDefault();
      runCommand(command);
    }
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, []);
}
