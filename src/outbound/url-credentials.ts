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

/** Query parameters whose values are credentials (`?token=`, `?api_key=`, `?access_token=`, `?sig=`, ...). */
const SECRET_PARAM = /token|key|secret|pass|auth|sig|credential/i;

/**
 * `url` as a page may show it: user name and password masked as maskUrl
 * does, and the value of every query parameter that looks like a credential
 * replaced by `REDACTED` (the rest of the query kept, as it says where data
 * comes from).
 */
export function displayUrl(url: string): string {
  if (!URL.canParse(url)) return '[REDACTED]';
  const parsed = new URL(url);
  const userinfo = parsed.username === '' && parsed.password === '' ? '' : '[REDACTED]@';
  for (const name of new Set(parsed.searchParams.keys())) if (SECRET_PARAM.test(name)) parsed.searchParams.set(name, 'REDACTED');
  return `${parsed.protocol}//${userinfo}${parsed.host}${parsed.pathname}${parsed.search}`;
}
