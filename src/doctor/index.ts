// The doctor: a read-only first-day check of an account. It asks each read
// operation the enabled collectors use once, over small ranges, and says for
// every assumption the exporter makes where the vendor document is silent
// whether this upstream agrees, and which config key to set if not. Its check
// ids are those of edge_exporter_contract_mismatches_total{check}, which the
// daemon counts at run time.
export { runDoctor, DOCTOR_DEADLINE_MS } from './runner.js';
export { setupFrom } from './setup.js';
export { renderText } from './render.js';
