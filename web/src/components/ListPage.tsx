import { Stack } from '@mantine/core';
import type { ReactNode } from 'react';
import { Empty, ErrorAlert, PageHeader, PageLoader } from './ui';

/** What a list shows while it loads, when it failed, when it has nothing, and when it has items. */
export interface ListBodyProps<Item> {
  /** The items; undefined until they load (or when they did not). */
  items: readonly Item[] | undefined;
  /** The first load is under way: a loader stands in for the list. */
  pending: boolean;
  /** Any error to show above the list (loading it, or an action on it). */
  error?: unknown;
  /** The empty state's words: what is missing and, where there is one, how to add it. */
  empty: ReactNode;
  /** A control under the empty state's words that adds the first item. */
  emptyAction?: ReactNode;
  /** The items as they are shown (a table, a grid of cards). */
  children(items: readonly Item[]): ReactNode;
}

/**
 * A list's body in its states: the error (in a role="alert" box), then a loader, the empty state, or
 * the items. A list that failed to load shows only the error; one whose refresh or action failed
 * keeps its items under the error.
 */
export function ListBody<Item>({ items, pending, error, empty, emptyAction, children }: ListBodyProps<Item>) {
  return (
    <>
      <ErrorAlert error={error} />
      {pending ? (
        <PageLoader />
      ) : items === undefined ? null : items.length === 0 ? (
        <EmptyState action={emptyAction}>{empty}</EmptyState>
      ) : (
        children(items)
      )}
    </>
  );
}

function EmptyState({ action, children }: { action?: ReactNode; children: ReactNode }) {
  if (!action) return <Empty>{children}</Empty>;
  return (
    <Stack align="center" gap="xs" pb="lg">
      <Empty>{children}</Empty>
      {action}
    </Stack>
  );
}

export interface ListPageProps<Item> extends ListBodyProps<Item> {
  /** The page's heading (level 1). */
  title: string;
  /** One line under the heading. */
  description?: ReactNode;
  /** Buttons and switches on the right of the heading (e.g. the page's "Create …"). */
  actions?: ReactNode;
  /** Filters between the heading and the list. */
  toolbar?: ReactNode;
  /** Shown under the list once it loaded (e.g. "showing the newest 100 of 250"). */
  footer?: ReactNode;
}

/**
 * The scaffold of every list page of the console: heading with its actions, optional filters, then
 * the list in its states (see ListBody). A page's dialogs go beside it.
 */
export function ListPage<Item>({
  title,
  description,
  actions,
  toolbar,
  footer,
  ...list
}: ListPageProps<Item>) {
  return (
    <>
      <PageHeader title={title} description={description} actions={actions} />
      {toolbar}
      <ListBody {...list} />
      {footer}
    </>
  );
}
