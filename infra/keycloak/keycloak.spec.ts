import { describe, expect, it } from 'vitest';
import { readableLogLine, reportsListening } from './keycloak.ts';

describe('readableLogLine', () => {
  it('drops time, level, category and thread from INFO lines', () => {
    expect(
      readableLogLine(
        "2026-11-22 02:06:31,003 INFO  [org.keycloak.exportimport.util.ImportUtils] (main) Realm 'atrium' imported",
      ),
    ).toBe("Realm 'atrium' imported");
  });

  it('keeps the level of warnings and errors so they stand out', () => {
    expect(
      readableLogLine('2026-11-22 02:06:31,003 ERROR [org.keycloak.services] (main) KC-SERVICES0010: boom'),
    ).toBe('ERROR [org.keycloak.services] (main) KC-SERVICES0010: boom');
  });

  it('leaves lines without a timestamp whole', () => {
    expect(
      readableLogLine(
        'Updating the configuration and installing your custom providers, if any. Please wait.',
      ),
    ).toBe('Updating the configuration and installing your custom providers, if any. Please wait.');
  });
});

describe('reportsListening', () => {
  const started =
    '2026-11-22 05:01:12,345 INFO  [io.quarkus] (main) Keycloak 26.7.3 on JVM (powered by Quarkus 3.33.3.1) ' +
    'started in 22.103s. Listening on: http://127.0.0.1:8080. Management interface listening on http://127.0.0.1:9000.';

  it("recognises Keycloak's start-up line for its own port", () => {
    expect(reportsListening(started, 8080)).toBe(true);
  });

  it('does not count a start on another port, or other lines that name the port', () => {
    expect(reportsListening(started, 18080)).toBe(false);
    expect(reportsListening(started, 9000)).toBe(false);
    expect(
      reportsListening(
        '2026-11-22 05:01:12,345 ERROR [org.keycloak.quarkus.runtime.cli.ExecutionExceptionHandler] (main) ' +
          'ERROR: Port(s) already bound: 8080: Address already in use',
        8080,
      ),
    ).toBe(false);
  });
});
