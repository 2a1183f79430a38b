import { useState } from 'react';
import { PlainText } from './plain-text';

/**
 * Blocks every fetch the page could make (images, styles, frames) besides inline styles, so an
 * observation cannot even phone home. It can only add restrictions: a policy in the content
 * cannot loosen this one.
 */
const CONTENT_SECURITY_POLICY =
  '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\'; img-src data:">';

/**
 * HTML from a trajectory, shown only inside an iframe with an empty sandbox: no scripts, no
 * same-origin access, no forms, no popups, no top navigation. The source view shows it as text.
 */
export function HtmlObservation({ content }: { content: string }) {
  const [showSource, setShowSource] = useState(false);
  return (
    <div className="html-observation">
      <div className="segmented" role="group" aria-label="HTML view">
        <button type="button" aria-pressed={!showSource} onClick={() => setShowSource(false)}>
          Rendered (sandboxed)
        </button>
        <button type="button" aria-pressed={showSource} onClick={() => setShowSource(true)}>
          Source
        </button>
      </div>
      {showSource ? (
        <PlainText content={content} />
      ) : (
        <iframe
          className="html-frame"
          title="HTML observation (sandboxed)"
          sandbox=""
          referrerPolicy="no-referrer"
          srcDoc={CONTENT_SECURITY_POLICY + content}
        />
      )}
    </div>
  );
}
