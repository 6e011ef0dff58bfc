// The strict reader the exposition properties rely on (test/support/
// exposition-reader.ts): it must read what a valid exposition says and refuse
// each kind of breakage the properties look for, or those properties could
// not fail.
import { describe, expect, it } from 'vitest';
import { ExpositionSyntaxError, readExposition, type ExpositionFormat } from '../support/exposition-reader.js';

describe('readExposition', () => {
  it('reads families, unescaped label values, values and timestamps (text)', () => {
    const text = [
      '# HELP edge_x_total Help with \\\\ and \\n.',
      '# TYPE edge_x_total counter',
      'edge_x_total{a="q\\"uote",b="back\\\\slash\\nnl"} 1.5 1700000000000',
      '',
      '# HELP edge_y Y.',
      '# TYPE edge_y gauge',
      'edge_y +Inf',
      '',
    ].join('\n');
    expect(readExposition(text, 'text')).toEqual([
      { name: 'edge_x_total', type: 'counter', help: 'Help with \\ and \n.', samples: [
        { name: 'edge_x_total', labels: [['a', 'q"uote'], ['b', 'back\\slash\nnl']], value: '1.5', timestamp: '1700000000000' },
      ] },
      { name: 'edge_y', type: 'gauge', help: 'Y.', samples: [{ name: 'edge_y', labels: [], value: '+Inf' }] },
    ]);
  });

  it('reads OpenMetrics counters under their family name, with UNIT and fractional timestamps', () => {
    const text = '# TYPE edge_b_bytes counter\n# UNIT edge_b_bytes bytes\n# HELP edge_b_bytes B \\"q\\".\nedge_b_bytes_total{k="v"} 3 1700000000.25\n# EOF\n';
    expect(readExposition(text, 'openmetrics')).toEqual([
      { name: 'edge_b_bytes', type: 'counter', unit: 'bytes', help: 'B "q".', samples: [{ name: 'edge_b_bytes_total', labels: [['k', 'v']], value: '3', timestamp: '1700000000.25' }] },
    ]);
  });

  const head = '# HELP edge_x X.\n# TYPE edge_x gauge\n';
  it.each<[string, string, ExpositionFormat]>([
    ['an unknown escape in a label value', `${head}edge_x{a="\\t"} 1\n`, 'text'],
    ['an unterminated label value', `${head}edge_x{a="b} 1\n`, 'text'],
    ['a label twice', `${head}edge_x{a="1",a="2"} 1\n`, 'text'],
    ['a series twice', `${head}edge_x{a="1"} 1\nedge_x{a="1"} 2\n`, 'text'],
    ['a trailing comma', `${head}edge_x{a="1",} 1\n`, 'text'],
    ['a sample of another family', `${head}edge_z 1\n`, 'text'],
    ['a sample before any TYPE', 'edge_x 1\n', 'text'],
    ['a family split in two', `${head}edge_x{a="1"} 1\n# HELP edge_y Y.\n# TYPE edge_y gauge\nedge_y 1\n# HELP edge_x X.\n`, 'text'],
    ['a bad value', `${head}edge_x one\n`, 'text'],
    ['a fractional timestamp in text', `${head}edge_x 1 1.5\n`, 'text'],
    ['no final line feed', `${head}edge_x 1`, 'text'],
    ['OpenMetrics without # EOF', '# TYPE edge_x gauge\nedge_x 1\n', 'openmetrics'],
    ['an empty line in OpenMetrics', '# TYPE edge_x gauge\n\nedge_x 1\n# EOF\n', 'openmetrics'],
    ['a raw quote in OpenMetrics HELP', '# TYPE edge_x gauge\n# HELP edge_x a "b"\nedge_x 1\n# EOF\n', 'openmetrics'],
    ['an OpenMetrics counter sample without _total', '# TYPE edge_x counter\nedge_x 1\n# EOF\n', 'openmetrics'],
  ])('refuses %s', (_name, text, format) => {
    expect(() => readExposition(text, format)).toThrow(ExpositionSyntaxError);
  });
});
