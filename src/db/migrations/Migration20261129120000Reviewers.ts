import { Migration } from '@mikro-orm/migrations';

/**
 * Reviewers (docs/console.md "The review queue"): an operator marks a console user as a reviewer
 * (`PUT /api/admin/accounts/:publisherId/reviewer`), who may then use the review endpoints with
 * their ID token. `reviewer_since` is when the mark was made; null for everyone else.
 */
export class Migration20261129120000Reviewers extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "accounts" add column "reviewer_since" timestamptz null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "accounts" drop column if exists "reviewer_since";`);
  }
}
