// The bundled simulator as the daemon's stand-in upstream, for a config
// without upstream.api_url (the demo, `npm start`), with the demo's OTLP receiver
// beside it (demo-otlp-receiver.ts). Only the CLI starts them, so the daemon and
// everything it imports stay free of the simulator.
import { parseHostPort } from '../config/fields.js';
import type { StartLocalUpstream } from '../daemon/wiring/upstream.js';
import { createSimulator } from '../simulator/index.js';
import { startDemoOtlpReceiver } from './demo-otlp-receiver.js';

export const startBundledSimulator: StartLocalUpstream = async (config, logger) => {
  const sim = config.simulator;
  const simulator = createSimulator({
    seed: sim.seed, domains: sim.domains, tokens: [{ token: sim.token, permissions: '*' }], readings: sim.readings,
    ...(sim.request_budget ? { budget: sim.request_budget } : {}),
  });
  // simulator.listen was validated as HOST:PORT when the config loaded.
  const { host, port } = parseHostPort(sim.listen) ?? { host: '127.0.0.1', port: 0 };
  const { url } = await simulator.listen(host, port);
  logger.info({ url, domains: sim.domains, seed: sim.seed }, 'bundled simulator listening (set upstream.api_url or EDGE_API_URL for a real account)');
  // Started whatever the config says: a reload may turn waf_events on, and it costs one idle loopback port.
  const receiver = await startDemoOtlpReceiver(host).catch(async (err: unknown) => {
    await simulator.close();
    throw err;
  });
  return {
    url,
    token: sim.token,
    otlpEndpoint: receiver.url,
    stop: async () => {
      await Promise.all([simulator.close(), receiver.close()]);
    },
  };
};
