import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createRootLogger, PinoNestLogger, withRequestId } from './logger.js';

describe('PinoNestLogger', () => {
  it('names the request being handled on every line, errors included, and none outside a request', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
          lines.push(JSON.parse(line) as Record<string, unknown>);
        }
        callback();
      },
    });
    const logger = new PinoNestLogger(createRootLogger('log', destination));
    await new Promise<void>((resolve) =>
      withRequestId('req-42', () => {
        // Later in the same request, after awaiting something.
        setTimeout(() => {
          logger.warn('slow', 'TelemetryService');
          logger.error('Unhandled error', 'Error: boom\n    at x', 'ProblemFilter');
          resolve();
        }, 1);
      }),
    );
    logger.log('started', 'NestApplication');
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines.map((line) => [line['msg'], line['requestId'], line['context']])).toEqual([
      ['slow', 'req-42', 'TelemetryService'],
      ['Unhandled error', 'req-42', 'ProblemFilter'],
      ['started', undefined, 'NestApplication'],
    ]);
    expect(lines[1]!['stack']).toContain('boom');
  });
});
