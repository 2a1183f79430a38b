import { create } from 'zustand';

/** Playback state, shared by the controls, the keyboard handler and the auto-advance timer. */
interface ReplayState {
  playing: boolean;
  setPlaying(playing: boolean): void;
  togglePlaying(): void;
}

export const useReplayStore = create<ReplayState>((set) => ({
  playing: false,
  setPlaying: (playing) => set({ playing }),
  togglePlaying: () => set((state) => ({ playing: !state.playing })),
}));
