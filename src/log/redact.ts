// Masks literal secret values (the API token) wherever they appear in text:
// a token that leaks into an error message or a URL is still not printed.

export const REDACTED = '[REDACTED]';

/** Secrets this short would mangle ordinary output if masked, so they are skipped. */
const MIN_SECRET_LENGTH = 4;

/**
 * The forms a secret takes in text: as is, escaped inside a JSON string, and
 * percent-encoded in a URL. Longest first, so no shorter form splits a longer one.
 */
function secretForms(secrets: readonly string[]): string[] {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET_LENGTH) continue;
    forms.add(secret);
    forms.add(JSON.stringify(secret).slice(1, -1));
    forms.add(encodeURIComponent(secret));
  }
  return [...forms].sort((a, b) => b.length - a.length);
}

/**
 * A credential as a header carries it (`Bearer <token>`, `Basic <b64>`, a bare
 * API key) and without its scheme, since an echo or a message may quote either.
 */
export function credentialParts(headerValue: string): string[] {
  return [headerValue, headerValue.replace(/^\S+\s+/, '')];
}

/** Replaces every occurrence of each secret (see {@link secretForms}) with `[REDACTED]`. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  return scrub(text, secretForms(secrets));
}

/** {@link redactSecrets} with the forms precomputed, for hot paths such as every log line. */
function scrub(text: string, forms: readonly string[]): string {
  let result = text;
  for (const form of forms) {
    if (result.includes(form)) result = result.split(form).join(REDACTED);
  }
  return result;
}

/**
 * A set of secrets that can grow while it is in use (a token rotated at run
 * time), with their forms kept precomputed for {@link scrub}.
 */
export class SecretMask {
  private readonly secrets = new Set<string>();
  private forms: readonly string[] = [];

  constructor(secrets: readonly string[] = []) {
    for (const secret of secrets) this.add(secret);
  }

  /** Masks `secret` from now on; false when it is too short to mask (see {@link MIN_SECRET_LENGTH}) or already masked. */
  add(secret: string): boolean {
    if (secret.length < MIN_SECRET_LENGTH || this.secrets.has(secret)) return false;
    this.secrets.add(secret);
    this.forms = secretForms([...this.secrets]);
    return true;
  }

  scrub(text: string): string {
    return scrub(text, this.forms);
  }
}
