import { z } from 'zod';

export type JsonObject = { [key: string]: unknown };

/** Paths and schemas a plain-HTTP API adds to the one document (`openApiDocument`). */
export interface OpenApiPart {
  paths: JsonObject;
  schemas?: JsonObject;
}

/**
 * Zod types as OpenAPI 3.1 component schemas (JSON Schema 2020-12, which zod emits), as clients
 * may send them (`io: 'input'`: defaults optional). A recursive type (JSON values) comes with its
 * own `$defs`, which zod points at from the document's root (`#/$defs/…`); inside a document
 * those pointers must name the component they live in.
 */
export function componentSchemas(types: Record<string, z.ZodType>): Record<string, JsonObject> {
  return Object.fromEntries(
    Object.entries(types).map(([name, type]) => {
      const { $schema: _draft, ...schema } = z.toJSONSchema(type, {
        io: 'input',
        unrepresentable: 'any',
      });
      const text = JSON.stringify(schema).replaceAll(
        '"#/$defs/',
        `"#/components/schemas/${name}/$defs/`,
      );
      return [name, z.record(z.string(), z.unknown()).parse(JSON.parse(text))];
    }),
  );
}
