import type { EntityManager } from '@mikro-orm/postgresql';
import type { Owner } from './owner';

/**
 * Checks that an id of another area's resource, named in a request body, is the caller's: each
 * resolves when it is and throws 404 NOT_FOUND when it is not (another account's or environment's
 * id reads as one that does not exist). The owning area implements the check; the composition root
 * (src/app/runtime.ts) wires it here, so an area can check a reference to an area that imports it
 * without an import cycle.
 */
export interface ReferenceChecks {
  /** A voice session id (`sess_…`), e.g. the one a REST workflow execution or tool test carries. */
  session(em: EntityManager, owner: Owner, id: string): Promise<void>;
  /**
   * A persona's `tools` (the personas area's PersonaToolRef): the problems found, as
   * `"tools[i]: …"` lines (none: it may be saved). Each must be the account's (a custom tool or MCP
   * server of either environment, a marketplace tool it installed), named once, and no two may reach
   * the model under one name in the same environment.
   */
  personaTools(em: EntityManager, accountId: string, refs: readonly ToolReference[]): Promise<string[]>;
  /**
   * A persona's provider choices (its model's, transcriber's and voice's): the problems found, as
   * `"<field>: …"` lines (none: it may be saved). Each must be one of the account's providers, of the
   * kind the field needs.
   */
  providers(em: EntityManager, accountId: string, refs: readonly ProviderReference[]): Promise<string[]>;
  /**
   * A persona's `knowledge.bases`: the problems found, as `"knowledge.bases.i: …"` lines (none: it
   * may be saved). Each must be a knowledge base of the account, named once.
   */
  knowledgeBases(em: EntityManager, accountId: string, ids: readonly string[]): Promise<string[]>;
  /** The personas (their `identity.id`, or id) whose manifest names the account's provider `id`. */
  providerUsers(em: EntityManager, accountId: string, id: string): Promise<string[]>;
}

/** A persona's reference to one of the account's providers (the providers area's). */
export interface ProviderReference {
  /** The manifest field that names it, e.g. `conversation.model.provider`. */
  field: string;
  id: string;
  kind: 'chat' | 'transcription' | 'voice';
}

/** A persona's reference to a tool it is offered (the personas area's PersonaToolRef). */
export interface ToolReference {
  type: 'tool' | 'mcp_server' | 'marketplace';
  id: string;
  /** An MCP server's allow-list. */
  tools?: string[];
}
