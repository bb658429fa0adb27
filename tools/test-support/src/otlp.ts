// An OTLP/HTTP trace receiver: what an operator's collector is to the API, for tests of its tracing.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/**
 * An OTLP/HTTP trace receiver for tests: what an operator's collector is to the API. It listens on
 * 127.0.0.1:<free port>, accepts `POST /v1/traces` with protobuf bodies (the API's exporter), answers 200, and
 * keeps every span it was sent, decoded.
 */
export interface OtlpReceiver {
  /** The base URL, as `OTEL_EXPORTER_OTLP_ENDPOINT` takes it, e.g. http://127.0.0.1:40123. */
  readonly url: string;
  /** Every span received so far. */
  readonly spans: readonly ReceivedSpan[];
  /** How many export requests arrived (each may carry many spans). */
  readonly exports: number;
  close(): Promise<void>;
}

export type AttributeValue = string | number | boolean | bigint | undefined;

export interface ReceivedSpan {
  /** Lower-case hex, as in a `traceparent` header. */
  readonly traceId: string;
  readonly spanId: string;
  /** Empty for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  readonly kind: number;
  readonly attributes: Readonly<Record<string, AttributeValue>>;
  /** The instrumentation scope that made it, e.g. `@opentelemetry/instrumentation-pg`. */
  readonly scope: string;
  readonly resource: Readonly<Record<string, AttributeValue>>;
}

export const SPAN_KIND = { internal: 1, server: 2, client: 3 } as const;

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  let exports = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      try {
        let body = Buffer.concat(chunks);
        if (request.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
        if (request.headers['content-type'] !== 'application/x-protobuf') {
          throw new Error(`unexpected content type ${request.headers['content-type']}`);
        }
        spans.push(...decodeExportTraceServiceRequest(body));
        exports += 1;
        // An empty ExportTraceServiceResponse: everything was accepted.
        response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      } catch (error) {
        response.writeHead(400, { 'content-type': 'text/plain' }).end(String(error));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    get exports() {
      return exports;
    },
    close: () =>
      new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}

/*
 * Just enough of the protobuf wire format to read OTLP's ExportTraceServiceRequest
 * (opentelemetry/proto/collector/trace/v1/trace_service.proto and trace/v1/trace.proto); fields it does not
 * need (events, links, status, ...) are skipped by their wire type.
 */

interface Field {
  readonly number: number;
  /** A varint or fixed number, or the bytes of a length-delimited field. */
  readonly value: bigint | Buffer;
}

function readFields(buffer: Buffer): Field[] {
  const fields: Field[] = [];
  let offset = 0;
  const varint = (): bigint => {
    let result = 0n;
    for (let shift = 0n; ; shift += 7n) {
      if (offset >= buffer.length) throw new Error('truncated varint');
      const byte = buffer[offset++]!;
      result |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return result;
    }
  };
  while (offset < buffer.length) {
    const key = varint();
    const number = Number(key >> 3n);
    const wireType = Number(key & 7n);
    if (wireType === 0) fields.push({ number, value: varint() });
    else if (wireType === 1) {
      fields.push({ number, value: buffer.readBigUInt64LE(offset) });
      offset += 8;
    } else if (wireType === 5) {
      fields.push({ number, value: BigInt(buffer.readUInt32LE(offset)) });
      offset += 4;
    } else if (wireType === 2) {
      const length = Number(varint());
      if (offset + length > buffer.length) throw new Error('truncated field');
      fields.push({ number, value: buffer.subarray(offset, offset + length) });
      offset += length;
    } else throw new Error(`unsupported wire type ${wireType}`);
  }
  return fields;
}

const bytesOf = (fields: Field[], number: number): Buffer[] =>
  fields.filter((field) => field.number === number).map((field) => field.value as Buffer);
const firstBytes = (fields: Field[], number: number): Buffer => bytesOf(fields, number)[0] ?? Buffer.alloc(0);
const numberOf = (fields: Field[], number: number): bigint =>
  (fields.find((field) => field.number === number)?.value as bigint | undefined) ?? 0n;

/** KeyValue { key = 1; AnyValue value = 2 }; AnyValue is a oneof of string, bool, int64, double, ... */
function readAttributes(buffers: Buffer[]): Record<string, AttributeValue> {
  const attributes: Record<string, AttributeValue> = {};
  for (const buffer of buffers) {
    const keyValue = readFields(buffer);
    const value = readFields(firstBytes(keyValue, 2))[0];
    let decoded: AttributeValue;
    if (value?.number === 1) decoded = (value.value as Buffer).toString('utf8');
    else if (value?.number === 2) decoded = value.value === 1n;
    else if (value?.number === 3) decoded = BigInt.asIntN(64, value.value as bigint);
    else if (value?.number === 4) {
      const bytes = Buffer.alloc(8);
      bytes.writeBigUInt64LE(value.value as bigint);
      decoded = bytes.readDoubleLE();
    }
    attributes[firstBytes(keyValue, 1).toString('utf8')] = decoded;
  }
  return attributes;
}

/** ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1 } into its spans. */
export function decodeExportTraceServiceRequest(body: Buffer): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of bytesOf(readFields(body), 1).map(readFields)) {
    // ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2 }; Resource { attributes = 1 }
    const resource = readAttributes(bytesOf(readFields(firstBytes(resourceSpans, 1)), 1));
    for (const scopeSpans of bytesOf(resourceSpans, 2).map(readFields)) {
      // ScopeSpans { InstrumentationScope scope = 1 (name = 1); repeated Span spans = 2 }
      const scope = firstBytes(readFields(firstBytes(scopeSpans, 1)), 1).toString('utf8');
      for (const span of bytesOf(scopeSpans, 2).map(readFields)) {
        // Span { trace_id = 1; span_id = 2; parent_span_id = 4; name = 5; kind = 6; attributes = 9 }
        spans.push({
          traceId: firstBytes(span, 1).toString('hex'),
          spanId: firstBytes(span, 2).toString('hex'),
          parentSpanId: firstBytes(span, 4).toString('hex'),
          name: firstBytes(span, 5).toString('utf8'),
          kind: Number(numberOf(span, 6)),
          attributes: readAttributes(bytesOf(span, 9)),
          scope,
          resource,
        });
      }
    }
  }
  return spans;
}
