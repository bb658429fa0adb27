// A destination for the API's logger that keeps what was logged, so a test can read it.
import { Writable } from 'node:stream';

/** A log line as the API writes it: one JSON object. */
export type LogLine = Record<string, unknown>;

/**
 * A destination for the API's logger (`createTestApp`'s `logDestination`, `createRootLogger`) that keeps every
 * line it is given, parsed, in `lines`, so a test can read what was logged.
 */
export function captureLogLines(): { readonly lines: LogLine[]; readonly destination: Writable } {
  const lines: LogLine[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
        lines.push(JSON.parse(line) as LogLine);
      }
      callback();
    },
  });
  return { lines, destination };
}
