export { createEngineRunner, type EngineRunner, type EngineRunnerEvents, type EngineRunnerOptions } from './engine-runner.js';
export { startEngineRole, type EngineRole, type EngineRoleOptions } from './role.js';
export { createCatalogChangeConsumer, type CatalogChangeConsumer, type CatalogChangeConsumerOptions } from './catalog-changes.js';
export { writeFiring, priceDedupeKey, type FireOutcome, type FiringContext } from './fire.js';
export { insertNotificationWithDeliveries, type NewNotification } from './notify.js';
export { expandPriceRules, compileRule, type RulePair } from './expand.js';
export { StreamPrices, sourceEventOf } from './prices-from-stream.js';
export { joinShards, tokenHash, ownerRank, type ShardMembership, type ShardView } from './shards.js';
export { SHARD_LOCK_CLASS, MAX_SHARDS } from '../../db/coordination.js';
