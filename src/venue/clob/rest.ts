import { z } from 'zod';
import type { Logger } from '../../logger.js';
import { requestJson, type FetchFn, type RetryPolicy } from '../http.js';
import { parseBook, type BookMessage } from './messages.js';

export interface ClobRestOptions {
  baseUrl: string;
  logger: Logger;
  timeoutMs: number;
  fetch?: FetchFn;
  retry?: RetryPolicy;
  /** Tokens per `POST /books` request. */
  chunkSize?: number;
  /** Aborts requests in flight and their retries: the engine stops without waiting on the venue. */
  signal?: AbortSignal;
}

export interface ClobRestClient {
  /** Current order books of the tokens, as `book` messages (unknown tokens are simply absent). */
  getBooks(tokenIds: readonly string[]): Promise<BookMessage[]>;
}

const BooksAnswer = z.array(z.unknown());

export function createClobRestClient(options: ClobRestOptions): ClobRestClient {
  const { logger, timeoutMs } = options;
  const base = options.baseUrl.replace(/\/+$/, '');
  const chunkSize = options.chunkSize ?? 200;
  const fetchFn = options.fetch ?? globalThis.fetch;

  async function fetchChunk(tokenIds: readonly string[]): Promise<BookMessage[]> {
    const raw = await requestJson({
      fetch: fetchFn,
      url: `${base}/books`,
      method: 'POST',
      body: tokenIds.map((token_id) => ({ token_id })),
      logger,
      timeoutMs,
      ...(options.retry ? { retry: options.retry } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const books: BookMessage[] = [];
    for (const item of BooksAnswer.parse(raw)) {
      const book = parseBook(item);
      if (book) books.push(book);
      else logger.debug('malformed REST book skipped');
    }
    return books;
  }

  return {
    async getBooks(tokenIds) {
      const chunks: string[][] = [];
      for (let i = 0; i < tokenIds.length; i += chunkSize) chunks.push(tokenIds.slice(i, i + chunkSize));
      const results = await Promise.all(chunks.map(fetchChunk));
      return results.flat();
    },
  };
}
