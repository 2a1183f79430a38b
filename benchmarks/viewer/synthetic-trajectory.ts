import type { Observation, Step, Trajectory } from '@terrarium/schema';

const ESC = String.fromCharCode(27);

/** Exactly `size` characters of output, made of lines that differ from step to step. */
function outputOf(step: number, size: number, line: (row: number) => string): string {
  const rows: string[] = [];
  let length = 0;
  for (let row = 0; length < size; row++) {
    const text = line(row);
    rows.push(text);
    length += text.length + 1;
  }
  return rows.join('\n').slice(0, size);
}

/**
 * A mix like a coding agent's: mostly plain tool output, some terminal output with colours, some
 * JSON results. Every body is `observationChars` long.
 */
function observationFor(step: number, observationChars: number): Observation {
  const callId = `call_${step}`;
  switch (step % 5) {
    case 3:
      return {
        kind: 'terminal',
        callId,
        content: outputOf(step, observationChars, (row) =>
          row % 7 === 0
            ? `${ESC}[32mPASS${ESC}[0m tests/unit/module_${step}_${row}.test.ts (${(row * 13) % 97} ms)`
            : `-rw-r--r-- 1 agent agent ${(step * 31 + row * 17) % 99_999} src/pkg_${step}/file_${row}.py`,
        ),
      };
    case 4: {
      // Search hits, as many as fit, then a note that pads the body to the exact size.
      const items: { id: number; path: string; score: number }[] = [];
      let length = JSON.stringify({ step, items, note: '' }).length;
      for (let row = 0; ; row++) {
        const item = {
          id: row,
          path: `src/pkg_${step}/file_${row}.py`,
          score: ((row * 7919) % 1000) / 1000,
        };
        const added = JSON.stringify(item).length + (items.length > 0 ? 1 : 0);
        if (length + added > observationChars) break;
        items.push(item);
        length += added;
      }
      const note = 'x'.repeat(observationChars - length);
      return { kind: 'json', callId, content: JSON.stringify({ step, items, note }) };
    }
    default:
      return {
        kind: 'text',
        callId,
        content: outputOf(
          step,
          observationChars,
          (row) =>
            `${String(row + 1).padStart(5)}  def handler_${step}_${row}(request): return respond(request, code=${row % 500})`,
        ),
      };
  }
}

function stepAt(index: number, observationChars: number): Step {
  return {
    index,
    actor: 'agent',
    action: {
      type: 'tool_call',
      name: index % 5 === 3 ? 'bash' : index % 5 === 4 ? 'search_code' : 'read_file',
      arguments: { path: `src/pkg_${index}/module.py`, step: index },
      callId: `call_${index}`,
    },
    observation: observationFor(index, observationChars),
    reasoning: `Step ${index + 1}: look at the next module.`,
    reward: null,
    timing: null,
    metadata: {},
  };
}

export function syntheticTrajectory(
  externalId: string,
  stepCount: number,
  observationChars: number,
): Trajectory {
  return {
    externalId,
    sourceFormat: 'openai-messages',
    sourceBenchmark: 'bench/viewer',
    domain: 'swe',
    task: `Read ${stepCount} modules and report.`,
    systemPrompt: 'You are a coding agent.',
    tools: [],
    toolsInferred: false,
    agentModel: 'bench',
    outcome: { reward: null, success: null },
    steps: Array.from({ length: stepCount }, (_, index) => stepAt(index, observationChars)),
    metadata: {},
    source: { file: `${externalId}.jsonl`, line: 1, record: { generated: true } },
  };
}
