import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { linkIn, listMails, waitForMail, type ReceivedMail } from '@atrium/test-support/mail';
import { startMailServer, type MailServer } from './mail-server.ts';

/** Speaks just enough SMTP to hand one plain-text message to the server, as Keycloak does. */
async function sendMail(
  smtp: { host: string; port: number },
  mail: { from: string; to: string; subject: string; text: string },
) {
  const socket = connect(smtp);
  socket.setEncoding('utf8');
  let buffered = '';
  const replies: string[] = [];
  let waiting: (() => void) | undefined;
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    // A reply ends with a line "NNN text" (a hyphen after the code means more lines follow).
    for (let match = /^(\d{3}) .*\r\n/m.exec(buffered); match; match = /^(\d{3}) .*\r\n/m.exec(buffered)) {
      replies.push(match[1]!);
      buffered = buffered.slice(match.index + match[0].length);
      waiting?.();
    }
  });
  const reply = async (): Promise<string> => {
    while (replies.length === 0) await new Promise<void>((resolve) => (waiting = resolve));
    return replies.shift()!;
  };
  const command = async (line: string, expected: string) => {
    socket.write(`${line}\r\n`);
    expect(await reply(), line.split(' ')[0]).toBe(expected);
  };
  expect(await reply()).toBe('220');
  await command('EHLO test.local', '250');
  await command(`MAIL FROM:<${mail.from}>`, '250');
  await command(`RCPT TO:<${mail.to}>`, '250');
  await command('DATA', '354');
  await command(
    [
      `From: ${mail.from}`,
      `To: ${mail.to}`,
      `Subject: ${mail.subject}`,
      'Content-Type: text/plain; charset=utf-8',
      '',
      mail.text,
      '.',
    ].join('\r\n'),
    '250',
  );
  await command('QUIT', '221');
  socket.end();
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function temporaryDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'atrium-mail-spec-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function started(mailDir: string): Promise<MailServer> {
  const server = await startMailServer({ smtpPort: 0, webPort: 0, mailDir });
  cleanups.push(() => server.stop());
  return server;
}

describe('startMailServer', () => {
  it('receives mail over SMTP on loopback and shows it in its REST API, with the link inside', async () => {
    const server = await started(temporaryDir());
    expect(server.smtp.host).toBe('127.0.0.1');
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    await sendMail(server.smtp, {
      from: 'no-reply@atrium.test',
      to: 'grace@atrium.test',
      subject: 'Verify email',
      text: 'Open http://localhost:8080/realms/atrium/login-actions/action-token?key=abc.def to verify.',
    });

    const mail = await waitForMail(server.url, 'grace@atrium.test', { subject: /verify/i, timeoutMs: 5_000 });
    expect(mail.from[0]?.address).toBe('no-reply@atrium.test');
    expect(linkIn(mail, 'http://localhost:8080/')).toBe(
      'http://localhost:8080/realms/atrium/login-actions/action-token?key=abc.def',
    );
    // Mail for someone else stays out of their inbox.
    expect(await listMails(server.url, 'alan@atrium.test')).toEqual([]);
    // The web inbox people open is served too.
    const page = await fetch(server.url, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
  });

  it('keeps the inbox in its mail folder across a restart', async () => {
    const mailDir = temporaryDir();
    const first = await startMailServer({ smtpPort: 0, webPort: 0, mailDir });
    await sendMail(first.smtp, {
      from: 'a@atrium.test',
      to: 'b@atrium.test',
      subject: 'Kept',
      text: 'hello',
    });
    await waitForMail(first.url, 'b@atrium.test', { timeoutMs: 5_000 });
    await first.stop();

    const second = await started(mailDir);
    expect((await listMails(second.url, 'b@atrium.test')).map((mail) => mail.subject)).toEqual(['Kept']);
  });

  it('stops listening when stopped', async () => {
    const server = await startMailServer({ smtpPort: 0, webPort: 0, mailDir: temporaryDir() });
    await server.stop();
    await expect(fetch(`${server.url}/api/healthz`)).rejects.toThrow();
  });

  it('names the busy port and how to find its owner when the SMTP port is taken', async () => {
    const busy: Server = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => busy.close(() => resolve())));
    const port = (busy.address() as AddressInfo).port;

    await expect(startMailServer({ smtpPort: port, webPort: 0, mailDir: temporaryDir() })).rejects.toThrow(
      new RegExp(`could not start on 127\\.0\\.0\\.1:${port} \\(SMTP\\).*ss -ltnp 'sport = :${port}'`),
    );
  });
});

describe('linkIn', () => {
  const mail = (text: string): ReceivedMail => ({
    id: '1',
    subject: 'Reset',
    time: '',
    to: [],
    from: [],
    text,
  });

  it('refuses a mail with no link, or more than one link, to the origin', () => {
    expect(() => linkIn(mail('no link here'), 'http://localhost:8080/')).toThrow(/found 0/);
    expect(() =>
      linkIn(mail('http://localhost:8080/a and http://localhost:8080/b'), 'http://localhost:8080/'),
    ).toThrow(/found 2/);
    expect(
      linkIn(mail('see http://other.test/x and http://localhost:8080/a'), 'http://localhost:8080/'),
    ).toBe('http://localhost:8080/a');
  });
});
