// Constructors for MetricDef, so each collector's metrics.ts reads as one
// table of definitions (name, help, unit, labels, source) that docs are generated from.
import type { OperationName } from '../api/index.js';
import type { MetricDef, MetricUnit } from './collector.js';

/**
 * Builds one family. `operation` and `field` become `source`; `operation` is
 * typed, so swapping it with the free-text `field` does not compile.
 */
type DefineMetric = (
  name: string, help: string, unit: MetricUnit, labels: readonly string[], operation: OperationName, field: string,
) => MetricDef;

const family = (type: MetricDef['type']): DefineMetric =>
  (name, help, unit, labels, operation, field) => ({ name, type, help, unit, labels, source: { operation, field } });

/** A counter family; its name ends in `_total`. */
export const counter: DefineMetric = family('counter');
/** A gauge family. */
export const gauge: DefineMetric = family('gauge');
