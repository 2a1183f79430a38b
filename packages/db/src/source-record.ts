import { promisify } from 'node:util';
import { inflateRaw } from 'node:zlib';
import type { Row } from './executor';
import { jsonColumn } from './row';

const inflateAsync = promisify(inflateRaw);

/**
 * A trajectory's source record from its row: the deflated JSON text that imports write since
 * migration 007, or the `json` value of rows written before it. Both drivers return bytea as a
 * Uint8Array (pg's Buffer is one).
 */
export async function sourceRecordOf(row: Row): Promise<unknown> {
  const deflated = row['source_record_deflated'];
  if (deflated instanceof Uint8Array) {
    const text = (await inflateAsync(deflated)).toString('utf8');
    return JSON.parse(text);
  }
  return jsonColumn(row, 'source_record');
}
