import { SingleBar } from 'cli-progress';

/** What long commands report progress to; silent when output is not a terminal or is JSON. */
export interface ProgressSink {
  advance(byteLength: number, status: { file: string; trajectories: number }): void;
  /** Moves the bar to `doneBytes` (back too: an upload's bytes, then the server's stored ones). */
  at(doneBytes: number, status: { file: string; trajectories: number }): void;
  /** Writes a line to stderr above the bar (written under a live bar, the two garble each other). */
  note(line: string): void;
  stop(): void;
}

const SILENT: ProgressSink = {
  advance() {},
  at() {},
  note: (line) => process.stderr.write(line),
  stop() {},
};

export function byteProgress(totalBytes: number, enabled: boolean): ProgressSink {
  if (!enabled || !process.stderr.isTTY) return SILENT;
  const bar = new SingleBar({
    stream: process.stderr,
    format: '{bar} {percentage}% | {done}/{total_mb} MB | {trajectories} trajectories | {file}',
    hideCursor: true,
    clearOnComplete: true,
  });
  let done = 0;
  let shown = { done: megabytes(0), total_mb: megabytes(totalBytes), trajectories: 0, file: '' };
  bar.start(totalBytes, 0, shown);
  const show = (status: { file: string; trajectories: number }) => {
    shown = { ...shown, done: megabytes(done), ...status, file: shorten(status.file) };
    bar.update(done, shown);
  };
  return {
    advance(byteLength, status) {
      done += byteLength;
      show(status);
    },
    at(doneBytes, status) {
      done = doneBytes;
      show(status);
    },
    note(line) {
      bar.stop();
      process.stderr.write(line);
      bar.start(totalBytes, done, shown);
    },
    stop: () => bar.stop(),
  };
}

/** Decimal megabytes, as the Import page and `ls --si` count them. */
function megabytes(bytes: number): string {
  return (bytes / 1_000_000).toFixed(1);
}

function shorten(name: string): string {
  return name.length <= 72 ? name : `…${name.slice(-71)}`;
}
