import { useEffect, useEffectEvent } from 'react';
import { useReplayStore } from './replay-store';

export const PLAYBACK_INTERVAL_MS = 1000;

/** While playing, advances one step per interval and stops on the last step. */
export function usePlayback(index: number, total: number, goTo: (index: number) => void): void {
  const playing = useReplayStore((state) => state.playing);
  const setPlaying = useReplayStore((state) => state.setPlaying);
  const advance = useEffectEvent(() => {
    if (index >= total - 1) setPlaying(false);
    else goTo(index + 1);
  });

  useEffect(() => {
    if (!playing) return;
    const timer = window.setInterval(advance, PLAYBACK_INTERVAL_MS);
    return () => window.clearInterval(timer);
  }, [playing]);

  // Leaving the replay stops playback, so the next trajectory opens paused.
  useEffect(() => () => setPlaying(false), [setPlaying]);
}
