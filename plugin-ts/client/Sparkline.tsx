/**
 * A memory's strength over time as a small inline SVG: days on a true time axis (the past points are
 * irregular — created, a stored score, recall days — and the projection is weekly), the past solid, the
 * decay ahead dashed, a dot on each recall, today marked.
 */
export interface StrengthPoint {
  day: string;
  value: number;
  event: string;
  projected: boolean;
}

const DAY_MS = 86_400_000;

export function Sparkline({ points, width = 260, height = 36 }: { points: StrengthPoint[]; width?: number; height?: number }) {
  const dated = points.map((p) => ({ ...p, t: Date.parse(p.day) })).filter((p) => Number.isFinite(p.t));
  if (dated.length === 0) return null;
  const t0 = dated[0]!.t;
  const span = Math.max(dated[dated.length - 1]!.t - t0, DAY_MS);
  const top = Math.max(...dated.map((p) => p.value), 1e-9);
  const pad = 3;
  const x = (t: number): number => pad + ((t - t0) / span) * (width - 2 * pad);
  const y = (v: number): number => height - pad - (v / top) * (height - 2 * pad);
  const line = (ps: typeof dated): string => ps.map((p) => `${x(p.t).toFixed(1)},${y(p.value).toFixed(1)}`).join(' ');
  const past = dated.filter((p) => !p.projected);
  // The projection starts where the past ends, so the two lines join.
  const ahead = past.length > 0 ? [past[past.length - 1]!, ...dated.filter((p) => p.projected)] : dated;
  const today = past.find((p) => p.event === 'today') ?? past[past.length - 1];
  const first = dated[0]!;
  const last = dated[dated.length - 1]!;
  return (
    <svg className="somni-spark" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`${first.day} ${first.value.toFixed(2)} → ${last.day} ${last.value.toFixed(2)}`}>
      {past.length > 1 && <polyline data-part="past" fill="none" stroke="currentColor" strokeWidth="1.5" points={line(past)} />}
      {ahead.length > 1 && <polyline data-part="projected" fill="none" stroke="currentColor" strokeOpacity="0.55" strokeWidth="1.2" strokeDasharray="3 3" points={line(ahead)} />}
      {past.filter((p) => p.event === 'recalled').map((p, i) => <circle key={i} data-part="recalled" cx={x(p.t)} cy={y(p.value)} r="2.2" fill="currentColor" />)}
      {today && <line data-part="today" x1={x(today.t)} x2={x(today.t)} y1={pad} y2={height - pad} stroke="currentColor" strokeOpacity="0.3" />}
      <title>{dated.map((p) => `${p.day} ${p.value.toFixed(2)} ${p.event}`).join('\n')}</title>
    </svg>
  );
}
