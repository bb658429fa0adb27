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
//
// With `flood`, a second autocannon sends field telemetry during the same window at a fixed overall rate
// (`rate` batches per second, the bench's BENCH_FLOOD_RATE), each batch a POST of one person's body with that
// person's token and a fresh DPoP proof (signed before the window, like the pool above), round-robin over the
// people: what the shells of many people reporting at once send. Its 2xx and 429 answers are counted; any
// other status or error fails the run like a failure of the measured target.
//   stdin:  {"url": "...", "seconds": 3, "connections": 16, "headers": {...}, "dpop": {..., "pool": 60000},
//            "flood": {"url": "...", "rate": 200, "connections": 8, "privateJwk": {...}, "people": [{"token", "body"}]}}
//   stdout: {"requestsPerSecond": 9123.4, "failures": 0, "signedDuringMeasurement": 0,
//            "flood": {"sent": 600, "accepted": 590, "limited": 10, "failures": 0}}
//           (failures: non-2xx, errors and timeouts; for the flood, anything but 2xx and 429)
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { type ProofRecipe, proofSigner } from './dpop-proofs.ts';

interface Flood {
  url: string;
  rate: number;
  connections: number;
  privateJwk: ProofRecipe['privateJwk'];
  people: Array<{ token: string; body: string }>;
}

interface LoadRequest {
  url: string;
  seconds: number;
  connections: number;
  headers?: Record<string, string>;
  dpop?: ProofRecipe & { pool: number };
  flood?: Flood;
}

// One signer per person's token, made once: creating the key object is the costly part.
const floodSigners = new Map<string, () => string>();

/**
 * Signs the flood's batches for a window of `seconds` (before it starts, so signing does not steal the
 * window), and returns how to send them: telemetry at `flood.rate` batches a second, resolving with its counts.
 */
function prepareFlood(flood: Flood, seconds: number) {
  const batchOf = (index: number) => {
    const person = flood.people[index % flood.people.length]!;
    let sign = floodSigners.get(person.token);
    if (!sign) {
      sign = proofSigner({
        privateJwk: flood.privateJwk,
        htm: 'POST',
        htu: flood.url,
        accessToken: person.token,
      });
      floodSigners.set(person.token, sign);
    }
    return {
      headers: { authorization: `DPoP ${person.token}`, dpop: sign(), 'content-type': 'application/json' },
      body: person.body,
    };
  };
  const batches: (ReturnType<typeof batchOf> | undefined)[] = Array.from(
    { length: Math.ceil(flood.rate * seconds * 1.2) },
    (_, index) => batchOf(index),
  );
  return async () => {
    let next = 0;
    const result = await autocannon({
      url: flood.url,
      method: 'POST',
      duration: seconds,
      connections: flood.connections,
      overallRate: flood.rate,
      requests: [
        {
          setupRequest: (prepared) => {
            // Should the signed batches run out, the rest are signed on the spot.
            const batch = batches[next] ?? batchOf(next);
            batches[next] = undefined;
            next += 1;
            return {
              ...prepared,
              method: 'POST',
              headers: { ...prepared.headers, ...batch.headers },
              body: batch.body,
            };
          },
        },
      ],
    });
    const limited = result.statusCodeStats?.['429']?.count ?? 0;
    return {
      sent: result.requests.total,
      accepted: result['2xx'],
      limited,
      // Anything but accepted or rate limited (a 5xx, another 4xx), and connection errors (timeouts included).
      failures: result.non2xx - limited + result.errors,
    };
  };
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
  const sendFlood = request.flood ? prepareFlood(request.flood, request.seconds) : undefined;
  const [result, flood] = await Promise.all([
    autocannon({
      url: request.url,
      duration: request.seconds,
      connections: request.connections,
      headers: request.headers ?? {},
      ...(requests ? { requests } : {}),
    }),
    sendFlood?.(),
  ]);
  const failures = result.non2xx + result.errors + result.timeouts;
  process.stdout.write(
    `${JSON.stringify({ requestsPerSecond: result.requests.average, failures, signedDuringMeasurement, flood })}\n`,
  );
}
