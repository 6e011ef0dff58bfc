// Optional HTTP basic auth. Compared in constant time so response timing says
// nothing about how much of a guess was right.
import { createHash, timingSafeEqual } from 'node:crypto';

export interface BasicAuthCredentials {
  readonly username: string;
  readonly password: string;
}

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

export function checkBasicAuth(header: string | undefined, expected: BasicAuthCredentials): boolean {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!m?.[1]) return false;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return false;
  // Hashing first gives equal-length buffers, as timingSafeEqual requires.
  const userOk = timingSafeEqual(digest(decoded.slice(0, colon)), digest(expected.username));
  const passOk = timingSafeEqual(digest(decoded.slice(colon + 1)), digest(expected.password));
  return userOk && passOk;
}
