import { Table, type TableProps, type TableTrProps } from '@mantine/core';
import { type CSSProperties, Fragment, type ReactNode } from 'react';
import { ScrollTable } from './ui';

/** One column of a DataTable: its header and what each row shows in it. */
export interface Column<Row> {
  /** The header cell's content (a VisuallyHidden label for a column of buttons). */
  header: ReactNode;
  cell(row: Row): ReactNode;
  /** Style of this column's body cells (e.g. breaking long URLs). */
  style?: CSSProperties;
}

export interface DataTableProps<Row> extends Omit<TableProps, 'children'> {
  /** The table's accessible name. */
  label: string;
  rows: readonly Row[];
  columns: readonly Column<Row>[];
  rowKey(row: Row): string | number;
  /** Extra attributes of a row (a test id, a highlight). */
  rowProps?(row: Row): TableTrProps & { 'data-testid'?: string };
  /** A full-width row under a row (its details, opened from it; `id` for aria-controls); null for none. */
  details?(row: Row): { id: string; content: ReactNode } | null;
  /** Wraps the table in a box that scrolls sideways below this width (see ScrollTable); none if omitted. */
  minWidth?: number;
}

/** A table of rows described by their columns; Mantine Table props (striped, highlightOnHover…) pass through. */
export function DataTable<Row>({
  label,
  rows,
  columns,
  rowKey,
  rowProps,
  details,
  minWidth,
  ...tableProps
}: DataTableProps<Row>) {
  const table = (
    <Table aria-label={label} {...tableProps}>
      <Table.Thead>
        <Table.Tr>
          {columns.map((column, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: columns are fixed per table
            <Table.Th key={i}>{column.header}</Table.Th>
          ))}
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {rows.map((row) => {
          const more = details?.(row);
          return (
            <Fragment key={rowKey(row)}>
              <Table.Tr {...rowProps?.(row)}>
                {columns.map((column, i) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: columns are fixed per table
                  <Table.Td key={i} style={column.style}>
                    {column.cell(row)}
                  </Table.Td>
                ))}
              </Table.Tr>
              {more ? (
                <Table.Tr>
                  <Table.Td colSpan={columns.length} id={more.id}>
                    {more.content}
                  </Table.Td>
                </Table.Tr>
              ) : null}
            </Fragment>
          );
        })}
      </Table.Tbody>
    </Table>
  );
  return minWidth === undefined ? table : <ScrollTable minWidth={minWidth}>{table}</ScrollTable>;
}
