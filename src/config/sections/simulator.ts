// `simulator:` — the bundled stand-in for the platform, for demos and tests.
import { z } from 'zod';
import { integer, listenAddress } from '../fields.js';

export const simulatorSchema = z.strictObject({
  enabled: z
    .boolean()
    .default(false)
    .describe('Run the bundled simulator in-process when upstream.api_url is not set (default false).'),
  listen: listenAddress()
    .default('127.0.0.1:0')
    .describe('HOST:PORT the simulator listens on; port 0 picks a free port (default 127.0.0.1:0).'),
  seed: integer().default(1).describe('Seed of the simulated account, so runs are reproducible (default 1).'),
  domains: integer().min(1).max(100_000).default(20).describe('Number of simulated domains, 1 to 100000 (default 20).'),
  token: z.string().min(1).default('sim-token').describe('Token the simulator accepts (default sim-token).'),
});
