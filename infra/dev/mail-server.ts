import { mkdirSync } from 'node:fs';
import { MailDev } from 'maildev';

export interface MailServerOptions {
  /** SMTP port Keycloak sends to; default 1025 (0 picks a free one). */
  smtpPort?: number;
  /** Port of the web inbox and its REST API; default 1080 (0 picks a free one). */
  webPort?: number;
  /** Where received mail is kept as .eml files; the inbox is reloaded from it at the next start. */
  mailDir: string;
  /** The newest mails kept; older ones are discarded with their files. Default 500. */
  maxEmails?: number;
}

/** A running MailDev: an SMTP server that keeps every mail, and a web inbox to read them. */
export interface MailServer {
  /** Where to send mail (loopback only). */
  smtp: { host: string; port: number };
  /** The web inbox; its REST API is under `/api` (e.g. `GET /api/email`). */
  url: string;
  stop(): Promise<void>;
}

/** Loopback only: a development inbox holds password-reset links and must never be reachable from the network. */
const HOST = '127.0.0.1';

/**
 * Starts MailDev in this process, so that `npm start` and the browser tests have a real mail server for
 * Keycloak's verification and password-reset mails, and a place to read them.
 */
export async function startMailServer(options: MailServerOptions): Promise<MailServer> {
  const smtpPort = options.smtpPort ?? 1025;
  const webPort = options.webPort ?? 1080;
  mkdirSync(options.mailDir, { recursive: true });
  const maildev = new MailDev({
    smtp: smtpPort,
    ip: HOST,
    web: webPort,
    webIp: HOST,
    mailDirectory: options.mailDir,
    maxEmails: options.maxEmails ?? 500,
    silent: true,
  });
  let servers: Awaited<ReturnType<MailDev['start']>>;
  try {
    servers = await maildev.start();
  } catch (error) {
    await maildev.stop().catch(() => undefined);
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `The mail server (MailDev) could not start on ${HOST}:${smtpPort} (SMTP) and ${HOST}:${webPort} (web): ${reason}. ` +
        `If a port is in use, find the process with \`ss -ltnp 'sport = :${smtpPort}'\` (or :${webPort}) and stop it.`,
      { cause: error },
    );
  }
  const webAddress = servers.api?.getAddress();
  if (!webAddress) {
    await maildev.stop();
    throw new Error('MailDev started without its web inbox.');
  }
  return {
    smtp: { host: HOST, port: servers.smtp.getAddress().port },
    url: `http://${HOST}:${webAddress.port}`,
    stop: () => maildev.stop(),
  };
}
