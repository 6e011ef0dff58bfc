// The WAF log the WAF benchmarks read: the simulator's WafLog over `domains`
// bench domains, seed 7, in the platform's zone (+08:00). One definition, so
// bench/waf.ts's peers and bench/waf-stages.ts read the same records.
import { platformClock, type PlatformClock } from '../../src/api/index.js';
import { WafLog } from '../../src/simulator/waf.js';

/** The platform's zone the benchmarks' records are written in. */
export const BENCH_TZ: PlatformClock = platformClock('+08:00');

export function benchWafLog(domains: number): WafLog {
  return new WafLog({
    seed: 7,
    offsetMinutes: BENCH_TZ.offsetMinutes,
    domains: Array.from({ length: domains }, (_, i) => ({ domainName: `d${i}.bench.example`, doid: String(i), wafId: String(1000 + i), isActive: '1' })),
  });
}
