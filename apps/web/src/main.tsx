import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/app';
import { takeSessionProofFromLocation } from './app/session-proof';
import './styles.css';

// Before the first request: the owner's link hands the page its session proof in the fragment.
takeSessionProofFromLocation();
const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');
createRoot(container).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
