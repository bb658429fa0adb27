import { connect, createServer } from 'node:net';

/** A loopback port that nothing listens on right now (bound, read and released). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', resolve);
  });
  const address = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('Could not find a free port.');
  return address.port;
}

/** True when something accepts connections on the port, over IPv4 or IPv6 loopback. */
export function isPortOpen(port: number): Promise<boolean> {
  const attempt = (host: string) =>
    new Promise<boolean>((done) => {
      const socket = connect({ host, port });
      socket.setTimeout(1_000);
      socket.once('connect', () => {
        socket.destroy();
        done(true);
      });
      socket.once('timeout', () => {
        socket.destroy();
        done(false);
      });
      socket.once('error', () => done(false));
    });
  return Promise.all([attempt('127.0.0.1'), attempt('::1')]).then(([v4, v6]) => v4 || v6);
}
