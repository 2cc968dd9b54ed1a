export { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
