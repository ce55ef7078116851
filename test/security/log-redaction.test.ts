import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';

describe('logger redaction', () => {
  it('replaces delivery PINs in every spelling, at the top level and nested one or two levels', () => {
    const lines: string[] = [];
    const stream = new Writable({ write: (chunk: Buffer | string, _e, done) => { lines.push(chunk.toString()); done(); } });
    const logger = createLogger({ level: 'info', destination: stream });
    logger.info({ pin: '4821', deliveryPin: '4822', delivery_pin: '4823' }, 'top');
    logger.info({ order: { pin: '4824', deliveryPin: '4825', delivery_pin: '4826' } }, 'nested');
    logger.info({ req: { body: { pin: '4827', deliveryPin: '4828', delivery_pin: '4829' } } }, 'deeper');
    const text = lines.join('');
    expect(lines).toHaveLength(3);
    for (let n = 4821; n <= 4829; n++) expect(text).not.toContain(String(n));
    expect(text.match(/\[redacted\]/g)).toHaveLength(9);
  });
});
