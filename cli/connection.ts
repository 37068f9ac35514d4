// Client connection for CLI commands; registers our search attributes on servers that lack them.
import { Client, Connection } from '@temporalio/client';
import { SEARCH_ATTRIBUTES } from '../contracts/messages';
import { temporalTarget } from './temporal-config';
import { connectDiagnosingTls } from './tls-diagnosis';

export async function connectClient(): Promise<Client> {
  const target = temporalTarget();
  const connection = await connectDiagnosingTls(target, () => Connection.connect({ ...target.connection, connectTimeout: 5000 }));
  return new Client({ connection, namespace: target.namespace });
}

const INDEXED_TYPE: Record<string, number> = { TEXT: 1, KEYWORD: 2, INT: 3, DOUBLE: 4, BOOL: 5 };

/** Idempotent: a dev server started by us already has them; another server gets them added here. */
export async function ensureSearchAttributes(client: Client): Promise<void> {
  const ns = client.options.namespace;
  const existing = await client.connection.operatorService.listSearchAttributes({ namespace: ns });
  const have = new Set([...Object.keys(existing.customAttributes ?? {}), ...Object.keys(existing.systemAttributes ?? {})]);
  const missing = SEARCH_ATTRIBUTES.filter((sa) => !have.has(sa.name));
  if (!missing.length) return;
  await client.connection.operatorService.addSearchAttributes({
    namespace: ns,
    searchAttributes: Object.fromEntries(missing.map((sa) => [sa.name, INDEXED_TYPE[sa.type]])),
  });
}
