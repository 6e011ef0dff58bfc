// Credentials inside a URL (a proxy's `http://user:pass@proxy:3128`): the
// URL as it may be shown, and the values every output must mask. Shared by
// the config (its messages), the clients (their errors) and the daemon (its
// log and status page).

/** `url` with any user name and password replaced by `[REDACTED]`; text that is not a URL is returned as `[REDACTED]` whole. */
export function maskUrl(url: string): string {
  if (!URL.canParse(url)) return '[REDACTED]';
  const parsed = new URL(url);
  if (parsed.username === '' && parsed.password === '') return url;
  return `${parsed.protocol}//[REDACTED]@${parsed.host}${parsed.pathname === '/' && !url.endsWith('/') ? '' : parsed.pathname}`;
}

/**
 * The secret forms the credentials of `url` take in text: the password as
 * written and percent-decoded, `user:password`, and the Basic value a proxy
 * is sent (Proxy-Authorization). Empty for a URL without a password.
 */
export function proxyCredentials(url: unknown): string[] {
  if (typeof url !== 'string' || !URL.canParse(url)) return [];
  const { username, password } = new URL(url);
  if (password === '') return [];
  const user = safeDecode(username);
  const pass = safeDecode(password);
  return [...new Set([password, pass, `${user}:${pass}`, Buffer.from(`${user}:${pass}`).toString('base64')])];
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
