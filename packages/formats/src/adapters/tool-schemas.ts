import type { JsonValue, Step, ToolSchema } from '@terrarium/schema';
import { RecordError } from '../adapter';
import { isArray, isJsonObject, isRecord, type JsonObject } from './json-guards';

type JsonType = 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object' | 'null';

function jsonTypeOf(value: JsonValue): JsonType {
  if (value === null) return 'null';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (isArray(value)) return 'array';
  return 'object';
}

interface ObservedTool {
  calls: number;
  /** Per argument name: the types seen and in how many calls it appeared. */
  properties: Map<string, { types: Set<JsonType>; seen: number }>;
}

function typeSchema(types: Set<JsonType>): JsonValue {
  // An integer seen beside a fractional number is a number.
  if (types.has('integer') && types.has('number')) types.delete('integer');
  const list = [...types].toSorted();
  return list.length === 1 && list[0] !== undefined ? list[0] : list;
}

/**
 * OpenAI function schemas inferred from the recorded tool calls: one per tool name, with each argument
 * typed from the values seen, and `required` listing the arguments present in every call.
 */
export function inferToolSchemas(steps: readonly Pick<Step, 'action'>[]): ToolSchema[] {
  const tools = new Map<string, ObservedTool>();
  for (const { action } of steps) {
    if (action.type !== 'tool_call') continue;
    let tool = tools.get(action.name);
    if (tool === undefined) {
      tool = { calls: 0, properties: new Map() };
      tools.set(action.name, tool);
    }
    tool.calls++;
    if (!isJsonObject(action.arguments)) continue;
    for (const [name, value] of Object.entries(action.arguments)) {
      let property = tool.properties.get(name);
      if (property === undefined) {
        property = { types: new Set(), seen: 0 };
        tool.properties.set(name, property);
      }
      property.types.add(jsonTypeOf(value));
      property.seen++;
    }
  }
  return [...tools.entries()].map(([name, tool]) => {
    const properties: JsonObject = {};
    const required: string[] = [];
    for (const [argument, property] of tool.properties) {
      properties[argument] = { type: typeSchema(property.types) };
      if (property.seen === tool.calls) required.push(argument);
    }
    return {
      type: 'function',
      function: { name, parameters: { type: 'object', properties, required } },
    };
  });
}

/**
 * Tool schemas given by the source, in the OpenAI shape `{type: 'function', function: {...}}` or the bare
 * `{name, description, parameters}` some datasets use. A JSON string holding the list is accepted too
 * (ShareGPT / LLaMA-Factory files store it that way).
 */
export function normalizeToolSchemas(value: unknown, path: string): ToolSchema[] {
  let list = value;
  if (typeof list === 'string') {
    if (list.trim() === '') return [];
    try {
      list = JSON.parse(list);
    } catch {
      throw new RecordError(path, 'is a string but not JSON');
    }
  }
  if (!isArray(list)) throw new RecordError(path, 'expected a list of tool schemas');
  return list.map((item, i) => {
    const itemPath = `${path}[${i}]`;
    const fn = isRecord(item) && isRecord(item.function) ? item.function : item;
    const fnPath = fn === item ? itemPath : `${itemPath}.function`;
    if (!isRecord(fn) || typeof fn.name !== 'string') {
      throw new RecordError(`${fnPath}.name`, 'expected a tool name');
    }
    const schema: ToolSchema = { type: 'function', function: { name: fn.name } };
    if (typeof fn.description === 'string') schema.function.description = fn.description;
    if (fn.parameters !== undefined && fn.parameters !== null) {
      if (!isJsonObject(fn.parameters)) {
        throw new RecordError(`${fnPath}.parameters`, 'expected a JSON schema object');
      }
      schema.function.parameters = fn.parameters;
    }
    return schema;
  });
}
