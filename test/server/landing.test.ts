// The landing page's notices (TLS checks off, outbound connection failures): shown above the table, escaped;
// and the daemon's state and readiness, what /readyz answers from.
import { describe, expect, it } from 'vitest';
import { renderLanding } from '../../src/server/landing.js';
import type { DaemonStatus } from '../../src/server/index.js';

const status = (over: Partial<DaemonStatus> = {}): DaemonStatus => ({ state: 'running', ready: true, collectors: [], notices: [], ...over });

describe('renderLanding notices', () => {
  it('shows each notice once, escaped, before the collectors table', () => {
    const html = renderLanding('1.0', status({ notices: ['upstream.tls.insecure_skip_verify is true', 'otlp: cannot reach <host>:4318 (ECONNREFUSED) & more'] }));
    expect(html).toContain('<p class="error">upstream.tls.insecure_skip_verify is true</p>');
    expect(html).toContain('<p class="error">otlp: cannot reach &#60;host&#62;:4318 (ECONNREFUSED) &#38; more</p>');
    expect(html.indexOf('insecure_skip_verify')).toBeLessThan(html.indexOf('<table>'));
  });

  it('shows none when there are none', () => {
    expect(renderLanding('1.0', status())).not.toContain('<p class="error">');
  });

  it('says the daemon\'s state and whether it is ready', () => {
    expect(renderLanding('1.0', status())).toContain('<p>state: running, ready</p>');
    expect(renderLanding('1.0', status({ state: 'stopping', ready: false }))).toContain('<p>state: stopping, not ready</p>');
  });
});
