import { SingleBar } from 'cli-progress';

/** What long commands report progress to; silent when output is not a terminal or is JSON. */
export interface ProgressSink {
  advance(byteLength: number, status: { file: string; trajectories: number }): void;
  /** Moves the bar to `doneBytes` (back too: an upload's bytes, then the server's stored ones). */
  at(doneBytes: number, status: { file: string; trajectories: number }): void;
  stop(): void;
}

const SILENT: ProgressSink = { advance() {}, at() {}, stop() {} };

export function byteProgress(totalBytes: number, enabled: boolean): ProgressSink {
  if (!enabled || !process.stderr.isTTY) return SILENT;
  const bar = new SingleBar({
    stream: process.stderr,
    format: '{bar} {percentage}% | {done}/{total_mb} MB | {trajectories} trajectories | {file}',
    hideCursor: true,
    clearOnComplete: true,
  });
  let done = 0;
  bar.start(totalBytes, 0, {
    done: megabytes(0),
    total_mb: megabytes(totalBytes),
    trajectories: 0,
    file: '',
  });
  return {
    advance(byteLength, status) {
      done += byteLength;
      bar.update(done, { done: megabytes(done), ...status, file: shorten(status.file) });
    },
    at(doneBytes, status) {
      done = doneBytes;
      bar.update(done, { done: megabytes(done), ...status, file: shorten(status.file) });
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
