// Types of what eslint.config.js exports, for the test that reads its fences.
export declare const ALLOWED_IMPORTS: Readonly<Record<string, readonly string[]>>;
declare const config: unknown;
export default config;
