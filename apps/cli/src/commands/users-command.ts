import {
  AccountRefusal,
  appRouter,
  NewUserInput,
  Password,
  PROGRAM_PRINCIPAL,
  removeAccount,
  setAccountPassword,
  setAccountRole,
  type AppRouter,
} from '@terrarium/api';
import type { StoredUser } from '@terrarium/db';
import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import { InvalidArgumentError, type Command } from 'commander';
import { CliError } from '../cli-error';
import { connect, disconnect, type DataTarget, type GlobalOptions } from '../connect';
import { authHeaders } from '../server-client';

const ROLES = ['researcher', 'labeler'] as const;

function parseRole(value: string): (typeof ROLES)[number] {
  const role = ROLES.find((known) => known === value);
  if (!role) throw new InvalidArgumentError('researcher or labeler');
  return role;
}

/**
 * Reads the whole of stdin (a pipe or file); the last line break is not part of the password.
 * `command` is the command to repeat (`users add ada --role researcher --password-stdin`), for the
 * hint when stdin is empty: a script that forgot the pipe learns what to do, not that its password
 * is too short.
 */
async function readStdinPassword(command: string): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of process.stdin) {
    if (Buffer.isBuffer(part)) parts.push(part);
  }
  const password = Buffer.concat(parts)
    .toString('utf8')
    .replace(/\r?\n$/, '');
  if (password === '') {
    throw new CliError(
      `no password was given on stdin: pipe one in (printf '%s\\n' "$PASSWORD" | terrarium ${command}), ` +
        'or run the command on a terminal to be asked for it',
    );
  }
  return password;
}

/** Asks on the terminal without echoing what is typed. */
function promptPassword(question: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const input = process.stdin;
    let typed = '';
    process.stderr.write(question);
    input.setRawMode(true);
    input.resume();
    input.setEncoding('utf8');
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n') {
          done();
          resolve(typed);
          return;
        }
        if (char === '\u0003') {
          done();
          reject(new CliError('canceled'));
          return;
        }
        if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1);
        else typed += char;
      }
    };
    const done = () => {
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      process.stderr.write('\n');
    };
    input.on('data', onData);
  });
}

async function readPassword(fromStdin: boolean, command: string): Promise<string> {
  if (fromStdin || !process.stdin.isTTY) return readStdinPassword(command);
  const first = await promptPassword('Password: ');
  const second = await promptPassword('Again: ');
  if (first !== second) throw new CliError('the two passwords differ');
  return first;
}

function serverClient(target: Extract<DataTarget, { kind: 'server' }>) {
  return createTRPCClient<AppRouter>({
    links: [httpLink({ url: `${target.url}/trpc`, headers: authHeaders(target.token) })],
  });
}

function serverError(error: unknown): never {
  if (error instanceof TRPCClientError) throw new CliError(error.message);
  throw error;
}

async function withTarget<T>(
  options: GlobalOptions,
  work: (target: DataTarget) => Promise<T>,
): Promise<T> {
  const target = await connect(options);
  try {
    return await work(target);
  } finally {
    await disconnect(target);
  }
}

export async function runUsersAdd(
  name: string,
  options: GlobalOptions & { role: (typeof ROLES)[number]; passwordStdin?: boolean },
): Promise<void> {
  const password = await readPassword(
    options.passwordStdin === true,
    `users add ${name} --role ${options.role} --password-stdin`,
  );
  const parsed = NewUserInput.safeParse({ name, role: options.role, password });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CliError(`${issue?.path.join('.') ?? 'input'}: ${issue?.message ?? 'invalid'}`);
  }
  const user = await withTarget(options, async (target) => {
    if (target.kind === 'server') {
      return serverClient(target).auth.users.add.mutate(parsed.data).catch(serverError);
    }
    // In the folder too through the procedure a server runs for a program: its rules (a
    // researcher's account before any labeler's, no name taken twice) are then one, wherever the
    // account is added.
    return appRouter
      .createCaller({ store: target.store, principal: PROGRAM_PRINCIPAL })
      .auth.users.add(parsed.data)
      .catch((error: unknown) => {
        // The procedure's refusals (TRPCError, a class of @trpc/server, which the CLI does not
        // depend on) say what to do; anything else is a crash to report.
        if (error instanceof Error && error.name === 'TRPCError') throw new CliError(error.message);
        throw error;
      });
  });
  process.stdout.write(`Added ${user.role} ${user.name}\n`);
}

export async function runUsersList(options: GlobalOptions & { json?: boolean }): Promise<void> {
  const users = await withTarget(options, listUsersOn);
  if (options.json) {
    process.stdout.write(`${JSON.stringify(users)}\n`);
    return;
  }
  if (users.length === 0) {
    process.stdout.write(
      'No accounts: on 127.0.0.1 the browser is the local owner. Add one with `terrarium users add NAME --role researcher`.\n',
    );
    return;
  }
  const width = Math.max(4, ...users.map((user) => user.name.length));
  const lines = users.map(
    (user) => `${user.name.padEnd(width)}  ${user.role.padEnd(10)}  ${user.createdAt}`,
  );
  process.stdout.write(
    `${['name'.padEnd(width) + '  role        created', ...lines].join('\n')}\n`,
  );
}

export async function runUsersPassword(
  name: string,
  options: GlobalOptions & { passwordStdin?: boolean },
): Promise<void> {
  const password = Password.safeParse(
    await readPassword(options.passwordStdin === true, `users password ${name} --password-stdin`),
  );
  if (!password.success) {
    throw new CliError(`password: ${password.error.issues[0]?.message ?? 'invalid'}`);
  }
  const changed = await withTarget(options, async (target) =>
    target.kind === 'server'
      ? (
          await serverClient(target)
            .auth.users.setPassword.mutate({ name, password: password.data })
            .catch(serverError)
        ).changed
      : setAccountPassword(target.store, name, password.data),
  );
  if (!changed) throw new CliError(`no user named ${name}`);
  process.stdout.write(`Set a new password for ${name} (and logged out their sessions)\n`);
}

/**
 * `users role NAME --role ROLE`: a labeler made a researcher or back, without removing the account
 * (which would split their labels over two accounts). The last researcher stays one.
 */
export async function runUsersRole(
  name: string,
  options: GlobalOptions & { role: (typeof ROLES)[number] },
): Promise<void> {
  const previous = await withTarget(options, async (target) => {
    const user = (await listUsersOn(target)).find((found) => found.name === name);
    if (user === undefined) throw new CliError(`no user named ${name}`);
    if (user.role === options.role) return user.role;
    if (target.kind === 'server') {
      await serverClient(target)
        .auth.users.setRole.mutate({ name, role: options.role })
        .catch(serverError);
    } else {
      await setAccountRole(target.store, name, options.role, { kind: 'program' }).catch(
        (error: unknown) => {
          if (error instanceof AccountRefusal) throw new CliError(error.message);
          throw error;
        },
      );
    }
    return user.role;
  });
  process.stdout.write(
    previous === options.role
      ? `${name} is already a ${options.role}\n`
      : `${name} is now a ${options.role} (was a ${previous}); it applies at their next request\n`,
  );
}

function listUsersOn(target: DataTarget): Promise<StoredUser[]> {
  return target.kind === 'server'
    ? serverClient(target).auth.users.list.query().catch(serverError)
    : target.store.listUsers();
}

/**
 * `users remove NAME`: like the other deletions, without `--yes` it only says what would go. The
 * API keeps the last researcher whatever the flags: with no researcher nobody could manage
 * accounts from the UI (and a loopback server with labelers alone would not fall back to the
 * local owner). Through the store, the items the account held go back to their queues at once,
 * as through a server.
 */
export async function runUsersRemove(
  name: string,
  options: GlobalOptions & { yes?: boolean },
): Promise<void> {
  const removed = await withTarget(options, async (target) => {
    const user = (await listUsersOn(target)).find((found) => found.name === name);
    if (user === undefined) throw new CliError(`no user named ${name}`);
    if (options.yes !== true) {
      throw new CliError(
        `this removes ${user.role} ${name} and ends their sessions (their labels stay); add --yes to remove it`,
      );
    }
    if (target.kind === 'server') {
      return (await serverClient(target).auth.users.remove.mutate({ name }).catch(serverError))
        .removed;
    }
    return removeAccount(target.store, name, { kind: 'program' }).catch((error: unknown) => {
      if (error instanceof AccountRefusal) throw new CliError(error.message);
      throw error;
    });
  });
  if (!removed) throw new CliError(`no user named ${name}`);
  process.stdout.write(`Removed ${name} (and logged out their sessions)\n`);
}

export function registerUsersCommand(program: Command): void {
  const users = program
    .command('users')
    .description('Accounts for the browser UI (researchers: everything; labelers: labeling only).');
  users
    .command('add')
    .description('Add an account; the password is read from stdin (or asked on the terminal).')
    .argument('<name>', 'login name')
    .requiredOption('--role <role>', 'researcher or labeler', parseRole)
    .option('--password-stdin', 'read the password from stdin even on a terminal')
    .action((name: string, _options: unknown, command: Command) =>
      runUsersAdd(name, command.optsWithGlobals()),
    );
  users
    .command('list')
    .description('List accounts.')
    .option('--json', 'print a JSON array')
    .action((_options: unknown, command: Command) => runUsersList(command.optsWithGlobals()));
  users
    .command('password')
    .description(
      "Set an account's password (one who forgot theirs) and end its sessions; read like add's.",
    )
    .argument('<name>', 'login name')
    .option('--password-stdin', 'read the password from stdin even on a terminal')
    .action((name: string, _options: unknown, command: Command) =>
      runUsersPassword(name, command.optsWithGlobals()),
    );
  users
    .command('role')
    .description(
      "Change an account's role (never the last researcher's); its labels and sessions stay.",
    )
    .argument('<name>', 'login name')
    .requiredOption('--role <role>', 'researcher or labeler', parseRole)
    .action((name: string, _options: unknown, command: Command) =>
      runUsersRole(name, command.optsWithGlobals()),
    );
  users
    .command('remove')
    .description(
      'Remove an account and end its sessions (never the last researcher); its labels stay.',
    )
    .argument('<name>', 'login name')
    .option('--yes', 'remove it (without: only say what would be removed)')
    .action((name: string, _options: unknown, command: Command) =>
      runUsersRemove(name, command.optsWithGlobals()),
    );
}
