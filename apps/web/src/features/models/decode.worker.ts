// The decoding Web Worker: onnxruntime-web and the decoder run here, so that the page's main thread
// never waits on a model run (see packages/inference/src/web/decode-service.ts for the protocol).
import { endpointOf, serveDecoding } from '@terrarium/inference/web';

serveDecoding(endpointOf(self));
