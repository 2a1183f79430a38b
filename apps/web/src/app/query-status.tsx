interface QueryStatusProps {
  label: string;
  isPending: boolean;
  error: { message: string } | null;
}

/** Loading and error lines for a query, so every page reports failures the same way. */
export function QueryStatus({ label, isPending, error }: QueryStatusProps) {
  if (error) {
    return (
      <p className="status status-error" role="alert">
        Could not load {label}: {error.message}
      </p>
    );
  }
  if (isPending) return <p className="status">Loading {label}…</p>;
  return null;
}
