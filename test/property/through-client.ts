// Answers a real EdgeClient call with a given body over undici's MockAgent,
// so a generated body goes through exactly what a live answer goes through:
// the size-capped read, JSON parsing, the envelope check and the answer
// schema. One attempt per call: the property is about one answer.
import { MockAgent } from 'undici';
import { EdgeClient } from '../../src/api/client.js';
import { ApiError } from '../../src/api/errors.js';
import { OPERATIONS, type OperationName } from '../../src/api/operations.js';
import type { RequestOf, AnswerOf } from '../../src/api/schemas/index.js';

const API = 'http://api.test';
const LOGIN = 'http://login.test';

type Answer<K extends OperationName> =
  | { readonly ok: true; readonly value: AnswerOf<K> }
  | { readonly ok: false; readonly error: ApiError };

/** The typed errors a well-formed HTTP 200 with a bad body may produce. */
export const BODY_ERROR_CODES: ReadonlySet<string> = new Set(['EDGE_BAD_RESPONSE', 'EDGE_UPSTREAM']);

export class WireClient {
  private readonly agent = new MockAgent();
  private readonly client: EdgeClient;

  constructor() {
    this.agent.disableNetConnect();
    // The order operations' 10 req/s would make a property run slow without making it any stronger.
    this.client = new EdgeClient({ apiUrl: API, loginUrl: LOGIN, token: 'property-token', dispatcher: this.agent, retry: { attempts: 1 }, orderRateLimit: 1_000_000 });
  }

  /** Calls `operation` and answers it with HTTP 200 and `body`; anything thrown that is not an ApiError is rethrown. */
  async answer<K extends OperationName>(operation: K, request: RequestOf<K>, body: string | Uint8Array): Promise<Answer<K>> {
    const spec = OPERATIONS[operation];
    this.agent
      .get(spec.host === 'login' ? LOGIN : API)
      .intercept({ path: () => true, method: spec.method })
      .reply(200, Buffer.from(body), { headers: { 'content-type': 'application/json' } });
    try {
      return { ok: true, value: await this.client.call(operation, request) };
    } catch (error) {
      if (error instanceof ApiError) return { ok: false, error };
      throw error;
    }
  }

  async close(): Promise<void> {
    await this.client.close();
    await this.agent.close();
  }
}
