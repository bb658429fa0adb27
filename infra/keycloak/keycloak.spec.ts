import { describe, expect, it } from 'vitest';
import { readableLogLine } from './keycloak.ts';

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
