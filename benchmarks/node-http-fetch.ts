// The node:http fetch lives with the client now (the server's `openai:` simulators use its
// transport); kept here so the benchmarks' imports stay as they were.
export { createNodeHttpFetch, createNodeHttpTransport } from '@terrarium/worlds/node-http';
