import { buildProgram } from './program';
import { CliError } from './cli-error';

// A reader that stops early (`terrarium datasets | head -1`) closes the pipe: what is left to
// print has nowhere to go, and the command ends quietly as a shell tool does, not with a stack.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(process.exitCode ?? 0);
});

try {
  await buildProgram().parseAsync(process.argv);
} catch (error) {
  if (error instanceof CliError) {
    process.stderr.write(`terrarium: ${error.message}\n`);
  } else {
    console.error(error);
  }
  process.exitCode = 1;
  // A store that failed halfway through opening can leave work behind that never ends (seen on a
  // full disk); the command has failed, so it does not wait for that work. Unref'd: a process with
  // nothing left exits at once, as always.
  setTimeout(() => process.exit(1), 5000).unref();
}
