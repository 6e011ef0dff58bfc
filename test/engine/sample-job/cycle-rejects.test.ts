// What a cycle reports of the points its conversion refused: in the RunReport
// (for the self-metric) once the watermarks passed them, a failed save
// included, and a warning per series and reason.
import { afterAll, describe, expect, it } from 'vitest';
import type { RejectedPoints } from '../../../src/collectors/rejects.js';
import { COUNTER, MIN, MemoryStore, every, fakeCollector, idleClient, output, rig, trackRigs } from '../fakes.js';

const client = idleClient();
afterAll(() => client.close());
const track = trackRigs();

const refused: RejectedPoints[] = [
  { series: 'edge_fake_requests_total{collector="x"}', reason: 'negative', count: 4 },
  { series: 'edge_fake_requests_total{collector="y"}', reason: 'negative', count: 1 },
  { series: 'edge_fake_requests_total{collector="y"}', reason: 'non_finite', count: 2 },
];
const cycle = () => output({ increments: [{ name: COUNTER, labels: { collector: 'x' }, value: 1 }], watermarks: { k: 1 }, rejected: refused });

describe('a cycle with refused points', () => {
  it.each([
    ['saved and published', 0, true],
    ['the save failed (the watermarks moved: the points are not read again)', 1, false],
  ])('%s: reported by reason and logged per series', async (_name, failSaves, ok) => {
    const store = new MemoryStore();
    store.failSaves = failSaves;
    const r = track(rig({ client, store, collectors: [{ collector: fakeCollector('x', async () => cycle()), schedule: every(MIN) }] }));
    const [report] = await r.engine.runOnce();
    expect(report).toMatchObject({ ok, rejected: { negative: 5, non_finite: 2 } });
    const lines = r.logger.entries.filter((e) => e.level === 'warn' && e.msg?.startsWith('points refused')).map((e) => ({ ...e.bindings, ...e.obj }));
    expect(lines).toEqual(refused.map((p) => ({ collector: 'x', series: p.series, reason: p.reason, count: p.count })));
  });

  it('reports nothing refused when the conversion refused nothing', async () => {
    const r = track(rig({ client, collectors: [{ collector: fakeCollector('x'), schedule: every(MIN) }] }));
    const [report] = await r.engine.runOnce();
    expect(report?.rejected).toBeUndefined();
  });
});
