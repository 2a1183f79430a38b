import { buildProgram } from './program';
import { CliError } from './cli-error';

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
