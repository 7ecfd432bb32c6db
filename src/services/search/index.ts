export { searchByKeyphrases, searchByTags } from './search.js';
export { findEvents, findMarkets, queryWords } from './find.js';
export { marketChartSvg } from './chart.js';
export * from './schemas.js';
export { findEvent, findMarket, findMarketId } from './lookup.js';
export { marketPriceHistory } from './price-history.js';
export { currentPrices } from './current-prices.js';
export { startSearchAnswerCache } from './answer-cache.js';
