import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';

const file = fileURLToPath(new URL('../../config.example.yaml', import.meta.url));

describe('config.example.yaml', () => {
  it('loads as-is and runs against the bundled simulator', () => {
    const config = loadConfig({ file, env: {} });
    expect(config.upstream.api_url).toBeUndefined();
    expect(config.simulator.enabled).toBe(true);
  });

  it('switches to a real account from the environment alone', () => {
    const config = loadConfig({ file, env: { EDGE_API_URL: 'https://api.example.com', EDGE_API_TOKEN: 'abcd-1234' } });
    expect(config.upstream).toMatchObject({ api_url: 'https://api.example.com', token: 'abcd-1234' });
  });
});
