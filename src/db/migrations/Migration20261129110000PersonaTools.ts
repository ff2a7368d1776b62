import { Migration } from '@mikro-orm/migrations';

/** Every custom tool and MCP server of the persona's account, oldest first, as manifest `tools`. */
const EVERY_TOOL_OF_THE_ACCOUNT = (account: string) => `coalesce((
    select jsonb_agg(r.ref order by r.kind, r.created_at, r.id) from (
      select 0 as kind, t.created_at, t.id, jsonb_build_object('type', 'tool', 'id', t.id) as ref
        from tools t where t.account_id = ${account}
      union all
      select 1, m.created_at, m.id, jsonb_build_object('type', 'mcp_server', 'id', m.id)
        from mcp_servers m where m.account_id = ${account}
    ) r), '[]'::jsonb)`;

/**
 * Tools per agent (docs/personas.md "Tools"): a persona's manifest names the tools its agent is
 * offered, and one that names none is offered none. Until now every agent was offered every custom
 * tool and MCP server of its session's environment; so that existing personas keep being offered
 * exactly that, each persona and each of its approved versions that has no `tools` gets the list of
 * every tool and MCP server its account had (of both environments: a session is offered those of
 * its own). A caller's own marketplace installations are offered as before, whatever the persona names.
 */
export class Migration20261129110000PersonaTools extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `update personas p set manifest = jsonb_set(p.manifest, '{tools}', ${EVERY_TOOL_OF_THE_ACCOUNT('p.account_id')})
        where not (p.manifest ? 'tools');`,
    );
    this.addSql(
      `update persona_versions v set manifest = jsonb_set(v.manifest, '{tools}', ${EVERY_TOOL_OF_THE_ACCOUNT('p.account_id')})
         from personas p where p.id = v.persona_id and not (v.manifest ? 'tools');`,
    );
  }

  override async down(): Promise<void> {
    // the lists stay: an agent keeps the tools it names (the code before this migration ignores them)
  }
}
