import { ROOT_CONTEXT, SpanKind, trace, TraceFlags } from '@opentelemetry/api';
import { SamplingDecision } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import type { TRACE_SAMPLERS } from '../config/index.js';
import { samplerFor, withoutLiterals } from './tracing.js';

describe('withoutLiterals', () => {
  it('keeps the shape of the statements MikroORM sends and none of their values', () => {
    const insert =
      'insert into "user_profile" ("id", "username", "email", "name", "theme", "created_at") values ' +
      "('133f6ebb-a7a4-4ef5-9bac-ecd4c38e5066', 'ada', 'ada@example.test', 'Ada O''Neil', 'dark', " +
      '\'2026-11-26T11:43:48.602Z\') on conflict ("id") do update set "username" = excluded."username" ' +
      'returning "theme", "created_at"';
    expect(withoutLiterals(insert)).toBe(
      'insert into "user_profile" ("id", "username", "email", "name", "theme", "created_at") values ' +
        '(?, ?, ?, ?, ?, ?) on conflict ("id") do update set "username" = excluded."username" ' +
        'returning "theme", "created_at"',
    );
    expect(
      withoutLiterals(
        'select "u0".* from "audit_event" as "u0" where "u0"."id" < 1250 and "u0"."score" > -0.5e3 limit 51',
      ),
    ).toBe('select "u0".* from "audit_event" as "u0" where "u0"."id" < ? and "u0"."score" > ? limit ?');
  });

  it('replaces escape strings whole, and keeps placeholders and identifiers with digits', () => {
    expect(withoutLiterals("select $1, t2.c3 from t2 where a = E'it\\'s' and b = 'C:\\'")).toBe(
      'select $1, t2.c3 from t2 where a = ? and b = ?',
    );
  });
});

describe('samplerFor (OTEL_TRACES_SAMPLER)', () => {
  const sampled = trace.setSpanContext(ROOT_CONTEXT, {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
  });
  const notSampled = trace.setSpanContext(sampled, {
    ...trace.getSpanContext(sampled)!,
    traceFlags: TraceFlags.NONE,
  });
  const decide = (name: (typeof TRACE_SAMPLERS)[number], parent = ROOT_CONTEXT, samplerRatio = 1) =>
    samplerFor({ sampler: name, samplerRatio }).shouldSample(
      parent,
      '0af7651916cd43dd8448eb211c80319c',
      'GET /api/me',
      SpanKind.SERVER,
      {},
      [],
    ).decision;
  const RECORD = SamplingDecision.RECORD_AND_SAMPLED;
  const DROP = SamplingDecision.NOT_RECORD;

  it('follows the caller with the parent-based samplers, and decides alone with the others', () => {
    expect(decide('parentbased_always_on')).toBe(RECORD);
    expect(decide('parentbased_always_on', notSampled)).toBe(DROP);
    expect(decide('parentbased_always_off')).toBe(DROP);
    expect(decide('parentbased_always_off', sampled)).toBe(RECORD);
    expect(decide('parentbased_traceidratio', ROOT_CONTEXT, 0)).toBe(DROP);
    expect(decide('parentbased_traceidratio', sampled, 0)).toBe(RECORD);
    expect(decide('always_on', notSampled)).toBe(RECORD);
    expect(decide('always_off', sampled)).toBe(DROP);
    expect(decide('traceidratio', sampled, 0)).toBe(DROP);
    expect(decide('traceidratio', notSampled, 1)).toBe(RECORD);
  });
});
