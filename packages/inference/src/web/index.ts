export * from './load-model-web';
export * from './execution-provider';
export * from './decode-protocol';
export * from './decode-client';
export { serveDecoding, yieldToEventLoop, type DecodeServiceOptions } from './decode-service';
