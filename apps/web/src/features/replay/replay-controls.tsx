import { useReplayStore } from './replay-store';
import type { ReplayCommand } from './replay-keys';

export function ReplayControls({
  index,
  total,
  onCommand,
}: {
  index: number;
  total: number;
  onCommand(command: ReplayCommand): void;
}) {
  const playing = useReplayStore((state) => state.playing);
  const atStart = index <= 0;
  const atEnd = index >= total - 1;
  return (
    <div className="replay-controls" role="toolbar" aria-label="Replay controls">
      <button
        type="button"
        onClick={() => onCommand('first')}
        disabled={atStart}
        title="First step (g)"
      >
        « First
      </button>
      <button
        type="button"
        onClick={() => onCommand('previous')}
        disabled={atStart}
        title="Previous step (k, ←, ↑)"
      >
        ◀ Prev
      </button>
      <button
        type="button"
        onClick={() => onCommand('toggle-play')}
        aria-pressed={playing}
        title="Play / pause (space)"
        className="play-button"
      >
        {playing ? '⏸ Pause' : '▶ Play'}
      </button>
      <button
        type="button"
        onClick={() => onCommand('next')}
        disabled={atEnd}
        title="Next step (j, →, ↓)"
      >
        Next ▶
      </button>
      <button
        type="button"
        onClick={() => onCommand('last')}
        disabled={atEnd}
        title="Last step (G)"
      >
        Last »
      </button>
      <span className="step-counter" data-testid="step-counter" aria-live="polite">
        {total === 0 ? 'No steps' : `Step ${index + 1} / ${total}`}
      </span>
      <span className="key-hint muted">j/k step · g/G first/last · space play</span>
    </div>
  );
}
