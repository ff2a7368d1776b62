/** The input of an item's removal workflow (workflows/remove-marketplace-item.ts). */
export interface RemovalWorkflowInput {
  /** The removal id (also the workflow id): `remove-<item id>-<n>`. */
  removalId: string;
  itemId: string;
  /** When the grace period ends (ISO 8601). */
  removesAt: string;
}

/** How a removal ended. */
export interface RemovalOutcome {
  removalId: string;
  status: 'removed' | 'restored';
  /** Installations marked `removed`. */
  installationsRemoved: number;
  /** Reviews still open for the item, withdrawn by the removal (their workflows are cancelled). */
  withdrawnReviews: string[];
}

/** The removal workflow's type, for starting one by name. */
export type RemovalWorkflow = (input: RemovalWorkflowInput) => Promise<RemovalOutcome>;

/** What the removal workflow's `state` query answers: `waiting` until the grace period ends. */
export interface RemovalWorkflowState {
  status: 'waiting' | 'removed' | 'restored';
  removesAt: string;
}
