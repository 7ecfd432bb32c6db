export { searchByKeyphrases, searchByTags } from './search.js';
export { marketChartSvg } from './chart.js';
export * from './schemas.js';
export { findEvent, findMarket, findMarketId } from './lookup.js';
