import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/app';
import { readOwnerLinkFragment } from './app/session-proof';
import './styles.css';

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');
const root = createRoot(container);
// Before the first request of the app: the owner's link hands the page its session proof.
void readOwnerLinkFragment().finally(() =>
  root.render(
    <StrictMode>
      <App />
    </StrictMode>,
  ),
);
