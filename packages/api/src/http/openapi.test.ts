import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from './openapi';

const VALIDATE = [
  'import json, sys',
  'from openapi_spec_validator import validate',
  'document = json.load(sys.stdin)',
  'validate(document)',
  'print(len(document["paths"]))',
].join('\n');

describe('GET /v1/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document by openapi-spec-validator, every $ref resolving', () => {
    // scripts/test.sh installs openapi-spec-validator from PyPI, as it does gymnasium.
    const paths = execFileSync('python3', ['-c', VALIDATE], {
      input: JSON.stringify(openApiDocument()),
    });
    expect(paths.toString().trim()).toBe('16');
  });
});
