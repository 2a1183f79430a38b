// A sandbox worker thread: compiles and runs custom rules in QuickJS, one message at a time.
// Runs off the server's event loop, so even a rule the interpreter cannot stop in time only
// costs this thread (the pool terminates it and starts another).
import { parentPort } from 'node:worker_threads';
import { CustomRuleError, QuickJsSandbox, transpileCustomRule } from '@terrarium/rubrics/sandbox';
import { chargedClock } from './charged-clock';
import { SandboxRequest, type SandboxReply } from './sandbox-protocol';

const compiledBySource = new Map<string, Promise<string>>();
// Compiled rules kept per worker; a rule set rarely has more than a handful.
const MAX_COMPILED = 256;

function compiled(source: string, language: 'javascript' | 'typescript'): Promise<string> {
  const key = `${language}\u0000${source}`;
  let found = compiledBySource.get(key);
  if (found === undefined) {
    if (compiledBySource.size >= MAX_COMPILED) compiledBySource.clear();
    found = transpileCustomRule({ source, language });
    compiledBySource.set(key, found);
  }
  return found;
}

const port = parentPort;
if (port === null) throw new Error('sandbox-worker runs as a worker thread');
// A rule is charged the time it could run: a loaded machine must not fail (and score 0) a rule
// that a quiet one passes.
const sandbox = new QuickJsSandbox(undefined, chargedClock());

port.on('message', async (message: unknown) => {
  const request = SandboxRequest.parse(message);
  let reply: SandboxReply;
  try {
    const code = await compiled(request.source, request.language);
    const result = await sandbox.run(code, request.input, request.limits);
    reply = { id: request.id, ok: true, result };
  } catch (error) {
    reply =
      error instanceof CustomRuleError
        ? { id: request.id, ok: false, message: error.message, fault: 'rule' }
        : {
            id: request.id,
            ok: false,
            message: `sandbox failure: ${error instanceof Error ? error.message : String(error)}`,
            fault: 'sandbox',
          };
  }
  port.postMessage(reply);
});
