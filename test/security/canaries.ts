// Distinctive secret values and every form in which a leak of one would show:
// as is, after a scheme, base64-encoded (as basic auth sends it), and half of
// it (a truncated label or message). `leaks` greps collected output for them.

export const TOKEN = 'tok-LeakCanary-8d1e5f27c4b9a6';
export const USERNAME = 'prom';
export const PASSWORD = 'pw-Canary-31f9e0d2b7';
export const OTLP_KEY = 'otlp-Canary-5a7c21e9f4';

const b64 = (text: string): string => Buffer.from(text).toString('base64');

/** The forms to look for, each named for the report. */
function forms(): ReadonlyArray<readonly [string, string]> {
  const half = Math.floor(TOKEN.length / 2);
  return [
    ['token', TOKEN],
    ['Bearer token', `Bearer ${TOKEN}`],
    ['token base64', b64(TOKEN)],
    ['Bearer token base64', b64(`Bearer ${TOKEN}`)],
    ['token first half', TOKEN.slice(0, half)],
    ['token second half', TOKEN.slice(half)],
    ['password', PASSWORD],
    ['user:password base64', b64(`${USERNAME}:${PASSWORD}`)],
    ['OTLP header secret', OTLP_KEY],
  ];
}

/** `source: form` for every secret form found in the collected texts. */
export function leaks(collected: ReadonlyMap<string, string>): string[] {
  const found: string[] = [];
  for (const [source, text] of collected) {
    for (const [name, form] of forms()) if (text.includes(form)) found.push(`${source}: ${name}`);
  }
  return found;
}
