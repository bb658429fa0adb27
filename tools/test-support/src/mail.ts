// MailDev, the stack's mail catcher, from outside: the mails Keycloak sent, read through MailDev's REST API.
import { waitUntil } from '@atrium/infra-lib/wait';

/** A mail as MailDev's REST API returns it (the parts Atrium reads). */
export interface ReceivedMail {
  id: string;
  subject: string;
  time: string;
  to: { address: string; name?: string }[];
  from: { address: string; name?: string }[];
  text?: string;
  html?: string;
}

/** Every mail MailDev holds for `to`, oldest first (`GET /api/email?to.address=`). */
export async function listMails(inboxUrl: string, to: string): Promise<ReceivedMail[]> {
  const url = new URL('/api/email', inboxUrl);
  url.searchParams.set('to.address', to);
  url.searchParams.set('sort', 'asc');
  const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
  if (!response.ok) throw new Error(`MailDev answered ${response.status} to GET ${url.href}`);
  return (await response.json()) as ReceivedMail[];
}

export interface WaitForMailOptions {
  /** Only mails whose subject matches. */
  subject?: RegExp;
  /** How many such mails were already there: waits for a newer one. Default 0. */
  after?: number;
  timeoutMs?: number;
}

/** Waits until a mail for `to` arrives and returns it; fails with what the inbox holds after `timeoutMs`. */
export async function waitForMail(
  inboxUrl: string,
  to: string,
  options: WaitForMailOptions = {},
): Promise<ReceivedMail> {
  let seen: ReceivedMail[] = [];
  return waitUntil(
    async () => {
      seen = (await listMails(inboxUrl, to)).filter((mail) => options.subject?.test(mail.subject) ?? true);
      return seen[options.after ?? 0];
    },
    {
      timeoutMs: options.timeoutMs ?? 20_000,
      intervalMs: 250,
      failure: () =>
        new Error(
          `No mail for ${to}${options.subject ? ` matching ${String(options.subject)}` : ''} arrived at ${inboxUrl} ` +
            `(found ${seen.length}: ${seen.map((found) => JSON.stringify(found.subject)).join(', ') || 'none'}).`,
        ),
    },
  );
}

/**
 * The one link in a mail's plain-text body that starts with `origin` (e.g. Keycloak's action-token link).
 * Fails when there is none or more than one, so a changed template is noticed instead of guessed at.
 */
export function linkIn(mail: ReceivedMail, origin: string): string {
  const links = [...new Set((mail.text ?? '').match(/https?:\/\/[^\s<>"]+/g) ?? [])].filter((link) =>
    link.startsWith(origin),
  );
  if (links.length !== 1) {
    throw new Error(
      `Expected one link to ${origin} in the mail "${mail.subject}", found ${links.length}: ${links.join(' ')}`,
    );
  }
  return links[0]!;
}
