// The node:http fetch lives with the client now (the server's `openai:` simulators use its
// transport); kept here so the benchmarks' imports stay as they were.
export { createNodeHttpFetch, createUndiciTransport } from '@terrarium/worlds/node-http';
