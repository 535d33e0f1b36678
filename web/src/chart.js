// A line chart of every method's mean error over a range (a slider's values or the animation's time), on a
// 2D canvas.
const COLORS = ['#e8b64c', '#4cc3e8', '#b58cf0', '#6be38a', '#f06c6c'];

export function drawChart(canvas, xs, series, { xLabel = '', yLabel = 'mean error (deg)' } = {}) {
  const ctx = canvas.getContext('2d');
  const W = canvas.width, H = canvas.height, L = 54, R = 150, T = 12, B = 34;
  ctx.clearRect(0, 0, W, H);
  ctx.fillStyle = '#0d0e11'; ctx.fillRect(0, 0, W, H);
  if (!xs.length) return;
  const x0 = xs[0], x1 = xs[xs.length - 1] === x0 ? x0 + 1 : xs[xs.length - 1];
  let ymax = 0;
  for (const s of series) for (const y of s.values) if (Number.isFinite(y)) ymax = Math.max(ymax, y);
  ymax = ymax > 0 ? ymax * 1.1 : 1;
  const px = (x) => L + ((x - x0) / (x1 - x0)) * (W - L - R);
  const py = (y) => H - B - (y / ymax) * (H - T - B);
  ctx.strokeStyle = '#444a55'; ctx.fillStyle = '#8b93a3'; ctx.font = '11px system-ui';
  ctx.beginPath(); ctx.moveTo(L, T); ctx.lineTo(L, H - B); ctx.lineTo(W - R, H - B); ctx.stroke();
  for (let i = 0; i <= 4; ++i) {
    const y = (ymax * i) / 4;
    ctx.fillText(y.toFixed(y < 10 ? 2 : 1), 6, py(y) + 4);
    const x = x0 + ((x1 - x0) * i) / 4;
    ctx.fillText(x.toFixed(2), px(x) - 10, H - B + 14);
  }
  ctx.fillText(xLabel, (W - R) / 2, H - 4);
  ctx.save(); ctx.translate(12, H / 2 + 40); ctx.rotate(-Math.PI / 2); ctx.fillText(yLabel, 0, 0); ctx.restore();
  series.forEach((s, k) => {
    ctx.strokeStyle = COLORS[k % COLORS.length]; ctx.lineWidth = 2;
    ctx.beginPath();
    s.values.forEach((y, i) => { const X = px(xs[i]), Y = py(Number.isFinite(y) ? y : 0); i ? ctx.lineTo(X, Y) : ctx.moveTo(X, Y); });
    ctx.stroke();
    ctx.fillStyle = COLORS[k % COLORS.length];
    ctx.fillText(s.name, W - R + 10, T + 14 + 16 * k);
  });
}
