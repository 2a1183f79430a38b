import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

const apiPort = process.env['TERRARIUM_API_PORT'] ?? '4317';
const apiTarget = `http://127.0.0.1:${apiPort}`;

export default defineConfig({
  plugins: [react()],
  server: {
    host: '127.0.0.1',
    proxy: {
      '/trpc': apiTarget,
      '/api': apiTarget,
      // The OpenAI-compatible endpoint (the playground streams from it) and the model files.
      '/v1': apiTarget,
      '/models/': apiTarget,
    },
    // As the Terrarium server does: cross-origin isolation lets onnxruntime-web use wasm threads.
    headers: {
      'cross-origin-opener-policy': 'same-origin',
      'cross-origin-embedder-policy': 'require-corp',
    },
  },
  optimizeDeps: {
    // Pre-bundling would move onnxruntime-web away from its .wasm file, which it finds with
    // `new URL(…, import.meta.url)`; unbundled, Vite serves (and in a build emits) that file itself.
    exclude: ['onnxruntime-web'],
  },
  worker: {
    // The decoding worker (features/models/decode.worker.ts) is a module worker that imports
    // onnxruntime-web's builds on demand: code splitting needs ES output (Vite's default is iife).
    format: 'es',
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
  },
  test: {
    environment: 'happy-dom',
  },
});
