import { useId, useState, type ReactNode } from 'react';

interface CollapsibleProps {
  title: ReactNode;
  /** Short text beside the title, e.g. a count; shown while collapsed too. */
  summary?: ReactNode;
  defaultOpen?: boolean;
  children: ReactNode;
  className?: string;
  testId?: string;
}

/** A disclosure whose body is rendered only while open, so closed sections cost nothing. */
export function Collapsible({
  title,
  summary,
  defaultOpen = false,
  children,
  className,
  testId,
}: CollapsibleProps) {
  const [open, setOpen] = useState(defaultOpen);
  const bodyId = useId();
  return (
    <section className={`collapsible ${className ?? ''}`} data-testid={testId}>
      <button
        type="button"
        className="collapsible-toggle"
        aria-expanded={open}
        aria-controls={bodyId}
        onClick={() => setOpen(!open)}
      >
        <span className="disclosure" aria-hidden="true">
          {open ? '▾' : '▸'}
        </span>
        <span className="collapsible-title">{title}</span>
        {summary !== undefined && <span className="collapsible-summary">{summary}</span>}
      </button>
      {open && (
        <div id={bodyId} className="collapsible-body">
          {children}
        </div>
      )}
    </section>
  );
}
