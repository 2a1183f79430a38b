import { inflateRawSync } from 'node:zlib';
import type { Row } from './executor';
import { jsonColumn } from './row';

/**
 * A trajectory's source record from its row: the deflated JSON text that imports write since
 * migration 007, or the `json` value of rows written before it. Both drivers return bytea as a
 * Uint8Array (pg's Buffer is one).
 */
export function sourceRecordOf(row: Row): unknown {
  const deflated = row['source_record_deflated'];
  if (deflated instanceof Uint8Array) {
    // Synchronous: zlib's asynchronous calls cost several times the CPU (import-rows.ts), and
    // the JSON.parse that follows blocks longer than inflating does.
    const text = inflateRawSync(deflated).toString('utf8');
    return JSON.parse(text);
  }
  return jsonColumn(row, 'source_record');
}
