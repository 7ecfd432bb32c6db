export { searchByKeyphrases, searchByTags } from './search.js';
export { marketChartSvg } from './chart.js';
export { matchEventIds, fromStoredQuery, type EventQuery } from './matcher.js';
export { publicBaseUrl, type SearchResult } from './results.js';
export * from './schemas.js';
export { eventRefKey, findEvent, findMarket, type EventRef } from './lookup.js';
