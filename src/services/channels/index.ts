export { testChannel, type TestSendResult } from './test-send.js';
