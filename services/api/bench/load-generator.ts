// The benchmark's load generator: one long-lived process, pinned by bench.ts to its own core, that runs
// autocannon once per line it reads on stdin and answers each with one JSON line on stdout. Kept alive for
// the whole run so that every measurement window finds the generator already compiled and warm, instead of
// starting a new process whose own start-up eats into the window.
//
// With `dpop`, every request carries its own DPoP proof, as a browser's would. Signing one costs about as much
// CPU as autocannon spends on a request, so signing while measuring would make the generator the limit. The
// proofs are signed before the measurement starts (a pool of `dpop.pool` proofs, sized by bench.ts from the
// rate measured before), and handed out one per request; should the pool run dry, the rest are signed on the
// spot and counted in `signedDuringMeasurement`.
//   stdin:  {"url": "...", "seconds": 3, "connections": 16, "headers": {...}, "dpop": {..., "pool": 60000}}
//   stdout: {"requestsPerSecond": 9123.4, "failures": 0, "signedDuringMeasurement": 0}
//           (failures: non-2xx, errors and timeouts)
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { type ProofRecipe, proofSigner } from './dpop-proofs.ts';

interface LoadRequest {
  url: string;
  seconds: number;
  connections: number;
  headers?: Record<string, string>;
  dpop?: ProofRecipe & { pool: number };
}

for await (const line of createInterface({ input: process.stdin })) {
  const request = JSON.parse(line) as LoadRequest;
  let signedDuringMeasurement = 0;
  let requests: autocannon.Request[] | undefined;
  if (request.dpop) {
    const sign = proofSigner(request.dpop);
    const pool: (string | undefined)[] = Array.from({ length: request.dpop.pool }, sign);
    let next = 0;
    requests = [
      {
        setupRequest: (prepared) => {
          let proof = pool[next];
          if (proof === undefined) {
            proof = sign();
            signedDuringMeasurement += 1;
          }
          pool[next] = undefined; // each proof once; let it be collected
          next += 1;
          return { ...prepared, headers: { ...prepared.headers, dpop: proof } };
        },
      },
    ];
  }
  const result = await autocannon({
    url: request.url,
    duration: request.seconds,
    connections: request.connections,
    headers: request.headers ?? {},
    ...(requests ? { requests } : {}),
  });
  const failures = result.non2xx + result.errors + result.timeouts;
  process.stdout.write(
    `${JSON.stringify({ requestsPerSecond: result.requests.average, failures, signedDuringMeasurement })}\n`,
  );
}
