// A line chart of every method's mean error over a range (a slider's values or the animation's time), on a
// 2D canvas.
// One colour per method (the table's swatches use the same list), distinct on the dark background.
export const COLORS = ['#e8b64c', '#4cc3e8', '#b58cf0', '#6be38a', '#f06c6c', '#f29ad8', '#e8e8e8', '#8fa3ff'];

export function drawChart(canvas, xs, series, { xLabel = '', yLabel = 'mean error (deg)' } = {}) {
  const ctx = canvas.getContext('2d');
  // L: the y label (rotated, x 4..16) and the tick numbers right-aligned against the axis, apart
  const W = canvas.width, H = canvas.height, L = 64, R = 150, T = 12, B = 40;
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
  const digits = ymax < 0.1 ? 4 : ymax < 10 ? 2 : 1;
  ctx.textBaseline = 'middle'; ctx.textAlign = 'right';
  for (let i = 0; i <= 4; ++i) {
    const y = (ymax * i) / 4;
    ctx.fillText(y.toFixed(digits), L - 6, py(y));
    ctx.beginPath(); ctx.moveTo(L - 3, py(y)); ctx.lineTo(L, py(y)); ctx.stroke();
  }
  ctx.textBaseline = 'top'; ctx.textAlign = 'center';
  for (let i = 0; i <= 4; ++i) {
    const x = x0 + ((x1 - x0) * i) / 4;
    ctx.fillText(x.toFixed(2), px(x), H - B + 6);
    ctx.beginPath(); ctx.moveTo(px(x), H - B); ctx.lineTo(px(x), H - B + 3); ctx.stroke();
  }
  ctx.textBaseline = 'bottom';
  ctx.fillText(xLabel, L + (W - L - R) / 2, H - 2);
  ctx.save(); ctx.translate(4, T + (H - T - B) / 2); ctx.rotate(-Math.PI / 2); ctx.textBaseline = 'top';
  ctx.fillText(yLabel, 0, 0); ctx.restore();
  ctx.textAlign = 'left'; ctx.textBaseline = 'alphabetic';
  series.forEach((s, k) => {
    ctx.strokeStyle = COLORS[k % COLORS.length]; ctx.lineWidth = 2;
    ctx.beginPath();
    // a value that is not a number (not measured) breaks the line rather than drawing it at 0
    let open = false;
    s.values.forEach((y, i) => {
      if (!Number.isFinite(y)) { open = false; return; }
      const X = px(xs[i]), Y = py(y);
      if (open) ctx.lineTo(X, Y); else ctx.moveTo(X, Y);
      open = true;
    });
    ctx.stroke();
    ctx.lineWidth = 1;
    ctx.fillStyle = COLORS[k % COLORS.length];
    ctx.fillText(s.name, W - R + 10, T + 14 + 16 * k);
  });
}
