import type { JsonValue, ToolSchema } from '@terrarium/schema';
import type { RecordedToolCall } from './learn-reads';

function jsonType(value: JsonValue): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/**
 * OpenAI function schemas for the tools a recording shows (tau2's results carry none): each
 * argument typed by what was passed (integer widened to number when both were), required when
 * every recorded call passed it. Names starting with `init:` (environment setup) are left out.
 */
export function inferToolSchemas(calls: readonly RecordedToolCall[]): ToolSchema[] {
  const byTool = new Map<
    string,
    { count: number; args: Map<string, { count: number; types: Set<string> }> }
  >();
  for (const call of calls) {
    if (call.name.startsWith('init:')) continue;
    const tool = byTool.get(call.name) ?? { count: 0, args: new Map() };
    tool.count++;
    const args =
      typeof call.arguments === 'object' &&
      call.arguments !== null &&
      !Array.isArray(call.arguments)
        ? call.arguments
        : {};
    for (const [name, value] of Object.entries(args)) {
      const arg = tool.args.get(name) ?? { count: 0, types: new Set<string>() };
      arg.count++;
      arg.types.add(jsonType(value));
      tool.args.set(name, arg);
    }
    byTool.set(call.name, tool);
  }
  return [...byTool.entries()]
    .toSorted(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, tool]) => {
      const properties: { [key: string]: JsonValue } = {};
      const required: string[] = [];
      for (const [arg, seen] of tool.args) {
        const types = [...seen.types].filter((type) => type !== 'null');
        const type =
          types.length === 2 && types.includes('integer') && types.includes('number')
            ? 'number'
            : (types[0] ?? 'string');
        properties[arg] =
          types.length > 2 || (types.length === 2 && type !== 'number') ? {} : { type };
        if (seen.count === tool.count) required.push(arg);
      }
      return {
        type: 'function',
        function: {
          name,
          description: `Inferred from ${tool.count} recorded call${tool.count === 1 ? '' : 's'}.`,
          parameters: { type: 'object', properties, required },
        },
      };
    });
}
