/** A memory's strength over the days, as a small inline SVG line. */
export function Sparkline({ points, width = 160, height = 28 }: { points: { day: string; value: number }[]; width?: number; height?: number }) {
  if (points.length === 0) return null;
  const values = points.map((p) => p.value);
  const max = Math.max(...values, 1e-9);
  const min = Math.min(...values, 0);
  const span = max - min || 1;
  const step = points.length > 1 ? width / (points.length - 1) : 0;
  const xy = points.map((p, i) => `${(i * step).toFixed(1)},${(height - 2 - ((p.value - min) / span) * (height - 4)).toFixed(1)}`);
  const first = points[0];
  const last = points[points.length - 1];
  return (
    <svg className="somni-spark" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`${first?.day ?? ''}–${last?.day ?? ''}: ${last?.value.toFixed(2) ?? ''}`}>
      <polyline fill="none" stroke="currentColor" strokeWidth="1.5" points={xy.join(' ')} />
    </svg>
  );
}
