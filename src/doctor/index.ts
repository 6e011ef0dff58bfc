// The doctor: a read-only first-day check of an account. It asks each read
// operation the enabled collectors use once, over small ranges, and says for
// every assumption the exporter makes where the vendor document is silent
// whether this upstream agrees, and which config key to set if not. Its check
// ids are those of edge_exporter_contract_mismatches_total{check}, which the
// daemon counts at run time.
export { runDoctor, DOCTOR_DEADLINE_MS, type DoctorOptions } from './runner.js';
export { planFrom, type DoctorPlan } from './plan.js';
export { renderJson, renderText, summaryLine } from './render.js';
export { refusalMessage } from './auth.js';
export type { DoctorClient } from './probe.js';
export { DOCTOR_CHECKS, type CheckId, type CheckResult, type DoctorReport, type DoctorSummary, type Setting, type Verdict } from './types.js';
