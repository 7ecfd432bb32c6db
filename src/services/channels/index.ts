export { testChannel } from './test-send.js';
