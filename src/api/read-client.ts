// The read client: what the daemon and the doctor ask the upstream with, one
// method per read operation and none that writes (ReadOperationName, from the
// operations table). The type keeps a collector from naming insertRule; the
// object readClient builds holds no write method at all, so a cast finds
// nothing to call either. The writes stay reachable through the full client's
// `call`, which only the `call` command uses.
import type { EdgeClient, Method } from './client.js';
import type { ReadOperationName } from './operations.js';

export type ReadClient = { readonly [K in ReadOperationName]: Method<K> };

/**
 * `client`'s read methods and nothing else, in a frozen plain object: they
 * are `client`'s own (bound), so every request still shares its budget, token
 * and connections. A method listed here that the table marks a write, or a
 * read left out, does not compile.
 */
export function readClient(client: EdgeClient): ReadClient {
  const methods: ReadClient = {
    describeLogV2: client.describeLogV2,
    getPackages: client.getPackages,
    describeL7UsageData: client.describeL7UsageData,
    describeL7DataV2: client.describeL7DataV2,
    describeL7Data: client.describeL7Data,
    describeL7MostData: client.describeL7MostData,
    describeL7CCAttack: client.describeL7CCAttack,
    listLayer4Packages: client.listLayer4Packages,
    getPackageDetails: client.getPackageDetails,
    listDomains: client.listDomains,
    describeHosting: client.describeHosting,
    getCacheRecordList: client.getCacheRecordList,
    describeHostAcceleratePackOrder: client.describeHostAcceleratePackOrder,
    describeVQUserData: client.describeVQUserData,
  };
  return Object.freeze(methods);
}
