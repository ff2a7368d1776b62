/** The pagination of a list answer (`{ success, data, pagination: { total, limit, offset } }`). */
export interface Pagination {
  total: number;
  limit: number;
  offset: number;
}

export interface Page<T> {
  data: T[];
  pagination: Pagination;
}

/** Fetches the page at `offset` of `limit` items. */
export type PageFetcher<T> = (offset: number, limit: number | undefined) => Promise<Page<T>>;

/**
 * A list call: `await` it for its first page (`{ data, pagination }`), or iterate it with
 * `for await` to get every item, page after page (offset and limit, until `total` is reached).
 */
export class PagePromise<T> implements PromiseLike<Page<T>>, AsyncIterable<T> {
  private first?: Promise<Page<T>>;

  constructor(
    private readonly fetchPage: PageFetcher<T>,
    private readonly startOffset = 0,
    private readonly limit?: number,
  ) {}

  private firstPage(): Promise<Page<T>> {
    this.first ??= this.fetchPage(this.startOffset, this.limit);
    return this.first;
  }

  // biome-ignore lint/suspicious/noThenProperty: a PagePromise is awaited like a promise of its first page
  then<R1 = Page<T>, R2 = never>(
    onfulfilled?: ((value: Page<T>) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.firstPage().then(onfulfilled, onrejected);
  }

  catch<R = never>(onrejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<Page<T> | R> {
    return this.firstPage().catch(onrejected);
  }

  /** Every page, from the first. */
  async *pages(): AsyncGenerator<Page<T>> {
    let page = await this.firstPage();
    for (;;) {
      yield page;
      const next = page.pagination.offset + page.data.length;
      if (page.data.length === 0 || next >= page.pagination.total) return;
      page = await this.fetchPage(next, this.limit ?? page.pagination.limit);
    }
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for await (const page of this.pages()) yield* page.data;
  }

  /** Every item, in one array. */
  async toArray(): Promise<T[]> {
    const items: T[] = [];
    for await (const item of this) items.push(item);
    return items;
  }
}
