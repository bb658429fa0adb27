/**
 * The claims of a JWT, read without checking its signature: for what the shell shows or how it signs, never
 * for a decision the API has to trust. Undefined when `token` is not a JWT with a JSON payload.
 */
export function readJwtClaims(token: string): unknown {
  const payload = token.split('.')[1];
  if (payload === undefined) return undefined;
  try {
    const base64 = payload.replace(/-/g, '+').replace(/_/g, '/');
    const bytes = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
}

/** The thumbprint of the key an access token is bound to (`cnf.jkt`, RFC 9449), if it says. */
export function boundKeyThumbprint(accessToken: string): string | undefined {
  const claims = readJwtClaims(accessToken) as { cnf?: { jkt?: unknown } } | undefined;
  const jkt = claims?.cnf?.jkt;
  return typeof jkt === 'string' ? jkt : undefined;
}
