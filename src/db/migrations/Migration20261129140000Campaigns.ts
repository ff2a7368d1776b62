import { Migration } from '@mikro-orm/migrations';

/**
 * Campaigns (docs/campaigns.md): one row per campaign, and one per contact, keyed by the campaign and
 * the contact's place in the request. The workflow pages through the contacts by status and index
 * (`campaign_contacts_due_index`); `claim_step` makes a claim of contacts idempotent.
 */
export class Migration20261129140000Campaigns extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "campaigns" ("id" varchar(40) not null, "account_id" varchar(40) not null, "environment" varchar(8) not null, "name" varchar(200) not null, "phone_number_id" varchar(40) not null, "persona_id" varchar(40) not null, "from_number" varchar(16) not null, "concurrency" int not null, "calling_hours" jsonb not null, "retry" jsonb not null, "contact_count" int not null, "minute_ms" int not null, "status" varchar(16) not null, "ended_at" timestamptz null, "workflow_started_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "campaigns_pkey" primary key ("id"));`,
    );
    this.addSql(
      `create index "campaigns_owner_index" on "campaigns" ("account_id", "environment", "created_at");`,
    );
    this.addSql(
      `alter table "campaigns" add constraint "campaigns_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `create table "campaign_contacts" ("campaign_id" varchar(40) not null, "index" int not null, "to" varchar(16) not null, "variables" jsonb not null default '{}', "status" varchar(16) not null default 'pending', "attempt_count" int not null default 0, "attempts" jsonb not null default '[]', "outcome" varchar(16) null, "next_attempt_at" timestamptz null, "claim_step" varchar(80) null, "updated_at" timestamptz not null default now(), constraint "campaign_contacts_pkey" primary key ("campaign_id", "index"));`,
    );
    this.addSql(
      `create index "campaign_contacts_due_index" on "campaign_contacts" ("campaign_id", "status", "index");`,
    );
    this.addSql(
      `create index "campaign_contacts_claim_index" on "campaign_contacts" ("campaign_id", "claim_step") where "claim_step" is not null;`,
    );
    this.addSql(
      `alter table "campaign_contacts" add constraint "campaign_contacts_campaign_id_foreign" foreign key ("campaign_id") references "campaigns" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "campaign_contacts" cascade;`);
    this.addSql(`drop table if exists "campaigns" cascade;`);
  }
}
