export { testChannel, testChatChannel, type TestSendResult } from './test-send.js';
