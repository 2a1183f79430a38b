import type { StepMarker } from '@terrarium/schema';
import { useEffect, useMemo, useRef, useState, type PointerEvent } from 'react';
import { legendFor, MARKER_COLORS, paintTimeline, stepAtX } from './timeline-geometry';

const TIMELINE_HEIGHT = 26;

function useElementWidth(element: HTMLElement | null): number {
  const [width, setWidth] = useState(0);
  useEffect(() => {
    if (!element) return;
    // The observer reports the initial size too, right after observe().
    const observer = new ResizeObserver(() => setWidth(element.clientWidth));
    observer.observe(element);
    return () => observer.disconnect();
  }, [element]);
  return width;
}

/**
 * The scrubber: every step as one mark on a single canvas (10,000 steps stay one DOM node),
 * coloured by actor, action type and error. Click or drag to jump.
 */
export function StepTimeline({
  markers,
  current,
  onSelect,
}: {
  markers: readonly StepMarker[];
  current: number;
  onSelect(index: number): void;
}) {
  const [container, setContainer] = useState<HTMLDivElement | null>(null);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const width = useElementWidth(container);
  const [hovered, setHovered] = useState<number | null>(null);
  const count = markers.length;

  useEffect(() => {
    const canvas = canvasRef.current;
    const context = canvas?.getContext('2d');
    if (!canvas || !context || width === 0) return;
    const ratio = window.devicePixelRatio || 1;
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(TIMELINE_HEIGHT * ratio);
    context.setTransform(ratio, 0, 0, ratio, 0, 0);
    paintTimeline(context, markers, width, TIMELINE_HEIGHT);
  }, [markers, width]);

  function indexAt(event: PointerEvent<HTMLDivElement>): number {
    const box = event.currentTarget.getBoundingClientRect();
    return stepAtX(event.clientX - box.left, box.width, count);
  }

  const hoveredMarker = hovered === null ? undefined : markers[hovered];
  // Only the kinds this trajectory has: a legend of kinds it never shows is noise to decode.
  const legend = useMemo(() => legendFor(markers), [markers]);
  const cursorWidth = count > 0 ? Math.max(100 / count, 0.2) : 0;
  return (
    <div className="timeline">
      <div
        ref={setContainer}
        className="timeline-track"
        role="slider"
        aria-label="Timeline"
        aria-valuemin={count > 0 ? 1 : 0}
        aria-valuemax={count}
        aria-valuenow={count > 0 ? current + 1 : 0}
        aria-valuetext={`Step ${current + 1} of ${count}`}
        tabIndex={0}
        data-testid="timeline"
        style={{ height: TIMELINE_HEIGHT }}
        onPointerDown={(event) => {
          event.currentTarget.setPointerCapture(event.pointerId);
          onSelect(indexAt(event));
        }}
        onPointerMove={(event) => {
          const index = indexAt(event);
          setHovered(index);
          if (event.buttons === 1) onSelect(index);
        }}
        onPointerLeave={() => setHovered(null)}
      >
        <canvas ref={canvasRef} style={{ width: '100%', height: TIMELINE_HEIGHT }} />
        {count > 0 && (
          <div
            className="timeline-cursor"
            style={{ left: `${(current / count) * 100}%`, width: `${cursorWidth}%` }}
          />
        )}
      </div>
      <div className="timeline-footer">
        <span className="timeline-hover mono">
          {hoveredMarker
            ? `${hoveredMarker.index + 1}: ${hoveredMarker.actor} · ${hoveredMarker.label}`
            : ' '}
        </span>
        <span className="legend">
          {legend.map((entry) => (
            <span key={entry.category} className="legend-item">
              <span
                className="legend-swatch"
                style={{ backgroundColor: MARKER_COLORS[entry.category] }}
              />
              {entry.label}
            </span>
          ))}
        </span>
      </div>
    </div>
  );
}
