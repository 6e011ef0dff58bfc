// Cron expressions for collector schedules, checked by node-cron itself at
// load time so a schedule that would never fire is a config error, not a
// silent idle collector.
import { validateDetailed } from 'node-cron';
import { z } from 'zod';

/** What is wrong with `expression`, or undefined when node-cron accepts it. */
function cronProblem(expression: string): string | undefined {
  const result = validateDetailed(expression);
  if (result.valid) return undefined;
  const details = result.errors.map((e) => (e.field === 'expression' ? e.message : `${e.field}: ${e.message}`));
  return `invalid cron expression (${details.join('; ') || 'not understood'}); expected 5 fields (minute hour day month weekday) or 6 with seconds first`;
}

/** A cron expression such as `*\/5 * * * *` or `@hourly`. */
export function cronExpression() {
  return z
    .string()
    .superRefine((text, ctx) => {
      const problem = cronProblem(text);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
    })
    .meta({ 'x-type': 'cron expression' });
}
