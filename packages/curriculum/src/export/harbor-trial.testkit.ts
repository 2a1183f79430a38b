/// <reference types="node" />
import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ExportedFile } from './harbor';

export function writeExportedFiles(folder: string, files: readonly ExportedFile[]): void {
  for (const file of files) {
    const path = join(folder, file.path);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, file.content);
    if (file.executable) chmodSync(path, 0o755);
  }
}

/** Probed once per process. */
let available: boolean | null = null;

/**
 * Whether this machine can run a task as its container would: a user and mount namespace
 * (`unshare -rm`), where the host's programs are bound into a fresh root.
 */
export function containerTrialsAvailable(): boolean {
  if (available !== null) return available;
  const probe = mkdtempSync(join(tmpdir(), 'harbor-probe-'));
  try {
    const bound = spawnSync('unshare', ['-rm', 'mount', '--rbind', '/dev', probe], {
      stdio: 'ignore',
    });
    available = bound.status === 0;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
  return available;
}

export const CONTAINER_TRIALS_REASON =
  '(skipped: running an exported task as its container would needs `unshare -rm` and bind mounts in it, which this machine refuses)';

/**
 * The host's folders the task's root borrows, each bound read-only: the scripts run as root in
 * their namespace, and a task's commands (a `find / -delete`, an `rm -rf` one level too high)
 * must not reach the host's files.
 */
const HOST_FOLDERS = ['bin', 'sbin', 'lib', 'lib64', 'usr', 'etc', 'proc'];
/** The devices a shell script needs, bound one by one (not the host's whole /dev). */
const DEVICES = ['null', 'zero', 'random', 'urandom', 'full'];

/**
 * Runs an exported Harbor task the way Harbor's container runs it, without Docker: a fresh root
 * built from the task's Dockerfile (`COPY workspace/ /`, `RUN mkdir -p`, `WORKDIR`) with the
 * host's programs bound in, then (for `oracle`) solution/solve.sh and always tests/test.sh, by
 * bash under chroot with TASK_ROOT empty, as in the container. Returns the reward test.sh wrote.
 */
export function containerTrial(folder: string, solve: 'oracle' | 'empty'): number {
  const root = mkdtempSync(join(tmpdir(), 'harbor-root-'));
  try {
    let workdir = '/';
    const runs: string[] = [];
    for (const line of readFileSync(join(folder, 'environment/Dockerfile'), 'utf8').split('\n')) {
      const [instruction, ...rest] = line.split(' ');
      const argument = rest.join(' ');
      if (instruction === 'COPY' && argument === 'workspace/ /')
        cpSync(join(folder, 'environment/workspace'), root, { recursive: true });
      else if (instruction === 'RUN') runs.push(argument);
      else if (instruction === 'WORKDIR') workdir = argument;
      else if (instruction !== 'FROM' && line.trim() !== '')
        throw new Error(`Dockerfile instruction this trial cannot run: ${line}`);
    }
    for (const name of HOST_FOLDERS) {
      const host = `/${name}`;
      if (!existsSync(host)) continue;
      const inside = join(root, name);
      // Merged /usr: /bin is a link to usr/bin on the host, and the same link inside.
      if (lstatSync(host).isSymbolicLink()) symlinkSync(readlinkSync(host), inside);
      else mkdirSync(inside, { recursive: true });
    }
    mkdirSync(join(root, 'tmp'), { recursive: true, mode: 0o1777 });
    mkdirSync(join(root, 'dev'), { recursive: true });
    for (const device of DEVICES) writeFileSync(join(root, 'dev', device), '');
    symlinkSync('/proc/self/fd', join(root, 'dev/fd'));
    cpSync(join(folder, 'tests'), join(root, 'tests'), { recursive: true });
    cpSync(join(folder, 'solution'), join(root, 'solution'), { recursive: true });
    const binds = [
      ...HOST_FOLDERS.filter(
        (name) => existsSync(`/${name}`) && !lstatSync(`/${name}`).isSymbolicLink(),
      ).map(
        (name) =>
          `mount --rbind /${name} "$ROOT/${name}" && mount -o remount,bind,ro "$ROOT/${name}"`,
      ),
      ...DEVICES.map((device) => `mount --bind /dev/${device} "$ROOT/dev/${device}"`),
    ].join(' && ');
    // The image's RUN lines, then the agent's turn (the oracle or nothing), then the verifier.
    const script = [
      'set -e',
      ...runs,
      'set +e',
      `cd ${JSON.stringify(workdir)}`,
      ...(solve === 'oracle' ? ['bash /solution/solve.sh > /dev/null 2>&1'] : []),
      'bash /tests/test.sh > /dev/null 2>&1',
      '',
    ].join('\n');
    writeFileSync(join(root, 'trial.sh'), script);
    const path = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
    execFileSync(
      'unshare',
      [
        '-rm',
        'bash',
        '-c',
        `${binds} && chroot "$ROOT" /usr/bin/env -i PATH=${path} TASK_ROOT= bash /trial.sh`,
      ],
      { env: { ...process.env, ROOT: root }, stdio: 'pipe' },
    );
    return Number(readFileSync(join(root, 'logs/verifier/reward.txt'), 'utf8'));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
