import { EntitySchema, OptionalProps } from '@mikro-orm/core';
import type { ReviewTests } from './review-types';
import type { ReviewKind, ReviewStatus } from './statuses';

/**
 * One operator review of one submission (a persona's n-th submission, a marketplace item's version).
 * Its id is the id of the Temporal workflow that runs it (`review-<subject id>-<submission>`). The
 * row is committed with the submission; the workflow is started after commit (by the API, else by
 * the outbox handler, which looks for rows whose `workflowStartedAt` is still null). Only the
 * workflow's activities write the outcome (`status`, `notes`, `decidedAt`) and `overdue`.
 */
export class Review {
  [OptionalProps]?:
    | 'status'
    | 'overdue'
    | 'notes'
    | 'decidedAt'
    | 'workflowStartedAt'
    | 'testRunId'
    | 'tests'
    | 'createdAt';
  id!: string;
  kind!: ReviewKind;
  subjectId!: string;
  /** The account (`pub_…`) whose submission it is. */
  accountId!: string;
  /** The persona's or item's name when submitted, for the operators' list. */
  subjectName!: string;
  submission!: number;
  status: ReviewStatus = 'pending';
  submittedAt!: Date;
  dueBy!: Date;
  /** Set by the workflow's durable timer when `dueBy` passed with no decision. */
  overdue = false;
  notes?: string | null;
  decidedAt?: Date | null;
  workflowStartedAt?: Date | null;
  /** A persona review's test run (started by its workflow before the operator decides). */
  testRunId?: string | null;
  /** That run's summary (null: a review from before the gate, or a marketplace review). */
  tests?: ReviewTests | null;
  createdAt: Date = new Date();
}

export const ReviewSchema = new EntitySchema<Review>({
  class: Review,
  tableName: 'reviews',
  properties: {
    id: { type: 'string', primary: true, length: 160 },
    kind: { type: 'string', length: 32 },
    subjectId: { type: 'string', length: 80 },
    accountId: { type: 'string', length: 80 },
    subjectName: { type: 'string', length: 200 },
    submission: { type: 'integer' },
    status: { type: 'string', length: 16 },
    submittedAt: { type: 'Date', columnType: 'timestamptz' },
    dueBy: { type: 'Date', columnType: 'timestamptz' },
    overdue: { type: 'boolean' },
    notes: { type: 'text', nullable: true },
    decidedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    workflowStartedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    testRunId: { type: 'string', length: 40, nullable: true },
    tests: { type: 'json', columnType: 'jsonb', nullable: true },
    createdAt: { type: 'Date', columnType: 'timestamptz' },
  },
});

/** The workflow id (and review id) of a subject's n-th submission. */
export const reviewId = (subjectId: string, submission: number | string) =>
  `review-${subjectId}-${submission}`;
