import { Migration } from '@mikro-orm/migrations';

/**
 * The review's test gate (docs/personas.md "Gating the review on tests"): a persona review records
 * the test run its workflow ran (`test_run_id`) and the run's summary (`tests`: status, counts, the
 * failing scenarios with their reasons; `status: none` when the persona had no scenarios); an
 * account's `require_passing_tests` makes a failing suite reject the submission at once.
 */
export class Migration20261128200000ReviewTestGate extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "accounts" add column "require_passing_tests" boolean not null default false;`);
    this.addSql(
      `alter table "reviews" add column "test_run_id" varchar(40) null, add column "tests" jsonb null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "reviews" drop column if exists "test_run_id", drop column if exists "tests";`);
    this.addSql(`alter table "accounts" drop column if exists "require_passing_tests";`);
  }
}
