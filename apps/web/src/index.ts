// The app is started by main.tsx (see index.html); this names its root component for tools.
export { App } from './app/app';
