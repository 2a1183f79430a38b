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
}
