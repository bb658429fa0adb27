// The benchmark's load generator: one long-lived process, pinned by bench.ts to its own core, that runs
// autocannon once per line it reads on stdin and answers each with one JSON line on stdout. Kept alive for
// the whole run so that every measurement window finds the generator already compiled and warm, instead of
// starting a new process whose own start-up eats into the window.
//   stdin:  {"url": "...", "seconds": 3, "connections": 16, "headers": {...}}
//   stdout: {"requestsPerSecond": 9123.4, "failures": 0}   (failures: non-2xx, errors and timeouts)
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';

interface LoadRequest {
  url: string;
  seconds: number;
  connections: number;
  headers?: Record<string, string>;
}

for await (const line of createInterface({ input: process.stdin })) {
  const request = JSON.parse(line) as LoadRequest;
  const result = await autocannon({
    url: request.url,
    duration: request.seconds,
    connections: request.connections,
    headers: request.headers ?? {},
  });
  const failures = result.non2xx + result.errors + result.timeouts;
  process.stdout.write(`${JSON.stringify({ requestsPerSecond: result.requests.average, failures })}\n`);
}
