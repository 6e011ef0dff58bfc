// Optional HTTP basic auth: one user with a plain password (compared in
// constant time, so response timing says nothing about how much of a guess
// was right), or users with bcrypt hashes (server.basic_auth.password_hash,
// a web config's basic_auth_users), checked as exporter-toolkit checks them.
import { createHash, timingSafeEqual } from 'node:crypto';
import bcrypt from 'bcryptjs';
import { VerifiedCache } from './verified-cache.js';

export type BasicAuthCredentials =
  | { readonly username: string; readonly password: string }
  /** User name -> bcrypt hash; never empty. */
  | { readonly users: ReadonlyMap<string, string> };

/** Whether `password` matches a bcrypt `hash`; bcryptjs' by default, a counting fake in tests. */
export type BcryptCompare = (password: string, hash: string) => Promise<boolean>;

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/**
 * Checks Authorization headers. bcrypt is slow by design (tens to hundreds of
 * milliseconds at cost 10), so as exporter-toolkit does, a successful check is
 * remembered, keyed by a digest of user, hash and password: Prometheus
 * scraping every 15 s pays bcrypt once, not on every scrape. Only successes
 * are kept, so a stream of wrong guesses can neither grow the cache nor push
 * the scraper's entry out; and bcrypt runs one at a time, so such a stream
 * costs one core at most.
 */
export class BasicAuthVerifier {
  private readonly verified = new VerifiedCache();
  private bcryptQueue: Promise<unknown> = Promise.resolve();

  constructor(private readonly compare: BcryptCompare = (password, hash) => bcrypt.compare(password, hash)) {}

  async check(header: string | undefined, expected: BasicAuthCredentials): Promise<boolean> {
    const sent = parseBasic(header);
    if (!sent) return false;
    if ('password' in expected) {
      // Hashing first gives equal-length buffers, as timingSafeEqual requires.
      const userOk = timingSafeEqual(digest(sent.username), digest(expected.username));
      const passOk = timingSafeEqual(digest(sent.password), digest(expected.password));
      return userOk && passOk;
    }
    const known = expected.users.get(sent.username);
    // An unknown user is checked against a configured hash all the same (same cost), so timing does not tell which users exist.
    const hash = known ?? expected.users.values().next().value ?? '';
    const key = digest(`${sent.username}\0${hash}\0${sent.password}`);
    if (known !== undefined && this.verified.has(key)) return true;
    const ok = (await this.bcrypt(sent.password, hash)) && known !== undefined;
    if (ok) this.verified.add(key);
    return ok;
  }

  private bcrypt(password: string, hash: string): Promise<boolean> {
    const result = this.bcryptQueue.then(() => this.compare(password, hash).catch(() => false));
    this.bcryptQueue = result;
    return result;
  }
}

function parseBasic(header: string | undefined): { username: string; password: string } | undefined {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!m?.[1]) return undefined;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
