// Inline CSS and JavaScript of the HTML report (html_report.cc). Kept here as raw string
// literals so the report is one self-contained file: no network, no CDN. The script draws
// the charts as inline SVG from the JSON blob embedded in the page
// (<script type="application/json" id="ampscope-data">), using only DOM APIs
// (createElementNS/textContent), so no report string is ever parsed as HTML.
#pragma once

namespace ampscope::render::html_assets {

inline constexpr const char* kCss = R"css(
:root { --fg:#1d2330; --muted:#5d6675; --line:#dde1e8; --bg:#f6f7f9; --card:#fff;
  --good:#1e8e3e; --warn:#b26a00; --bad:#c5221f; --unknown:#6b7280; --na:#9aa0a6; --accent:#1a73e8; }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.45 -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  color:var(--fg); background:var(--bg); }
main { max-width:1240px; margin:0 auto; padding:20px 24px 48px; }
h1 { font-size:22px; margin:0 0 2px; }
h2 { font-size:17px; margin:28px 0 10px; padding-bottom:4px; border-bottom:1px solid var(--line); }
h3 { font-size:14px; margin:0 0 6px; }
.sub { color:var(--muted); margin:0 0 14px; word-break:break-all; }
.cards { display:grid; grid-template-columns:repeat(auto-fill, minmax(180px, 1fr)); gap:10px; }
.card { background:var(--card); border:1px solid var(--line); border-radius:8px; padding:10px 12px; min-width:0; }
.card .k { color:var(--muted); font-size:12px; text-transform:uppercase; letter-spacing:.04em; }
.card .v { font-size:20px; font-weight:600; margin-top:2px; overflow-wrap:anywhere; }
.card .v.long { font-size:15px; }
.card .d { color:var(--muted); font-size:12px; overflow-wrap:anywhere; }
.matrix { display:grid; grid-template-columns:repeat(auto-fill, minmax(220px, 1fr)); gap:10px; }
.dim { background:var(--card); border:1px solid var(--line); border-left:6px solid var(--unknown);
  border-radius:8px; padding:10px 12px; min-width:0; overflow-wrap:anywhere; }
.dim.s-good { border-left-color:var(--good); } .dim.s-warn { border-left-color:var(--warn); }
.dim.s-bad { border-left-color:var(--bad); }
.dim .hv { font-size:18px; font-weight:600; } .dim .src, .dim .fl { color:var(--muted); font-size:12px; }
.badge { display:inline-block; padding:1px 8px; border-radius:10px; font-size:12px; font-weight:600;
  color:#fff; background:var(--unknown); white-space:nowrap; }
.s-good .badge, .badge.s-good, .badge.s-pass { background:var(--good); }
.s-warn .badge, .badge.s-warn { background:var(--warn); }
.s-bad .badge, .badge.s-bad, .badge.s-fail { background:var(--bad); }
.badge.s-not_applicable { background:var(--na); }
.badge.sev-critical { background:var(--bad); } .badge.sev-warning { background:var(--warn); }
.badge.sev-info { background:var(--accent); }
table { border-collapse:collapse; width:100%; background:var(--card); border:1px solid var(--line); }
th, td { text-align:left; padding:6px 8px; border-bottom:1px solid var(--line); vertical-align:top; }
th { font-size:12px; color:var(--muted); font-weight:600; background:#fafbfc; }
td.num, th.num { text-align:right; font-variant-numeric:tabular-nums; white-space:nowrap; }
td.name { font-family:ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size:12px; overflow-wrap:anywhere; }
tr.st-fail td:first-child, tr.st-bad td:first-child { box-shadow:inset 4px 0 var(--bad); }
tr.st-warn td:first-child { box-shadow:inset 4px 0 var(--warn); }
tr.st-pass td:first-child { box-shadow:inset 4px 0 var(--good); }
ol.findings { list-style:none; padding:0; margin:0; counter-reset:f; }
ol.findings > li { background:var(--card); border:1px solid var(--line); border-radius:8px; padding:10px 14px;
  margin-bottom:10px; counter-increment:f; }
ol.findings > li .t { font-weight:600; font-size:15px; }
ol.findings > li .t::before { content:counter(f) ". "; color:var(--muted); }
.meta { color:var(--muted); font-size:12px; margin:2px 0 6px; }
.meta code { font-size:12px; }
table.ev { width:auto; border:0; background:none; margin:6px 0; font-size:13px; }
table.ev > tbody > tr > th { color:var(--muted); font-weight:normal; background:none; font-size:13px; padding:2px 12px 2px 0;
  white-space:nowrap; border:0; }
table.ev > tbody > tr > td { padding:2px 0; border:0; overflow-wrap:anywhere; }
table.ev tr.note th, table.ev tr.note td { color:var(--muted); font-size:12px; }
table.evt { width:auto; font-size:12px; margin:2px 0; }
table.evt th, table.evt td { padding:2px 8px; }
table.evt td.name { font-family:ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; cursor:help; }
td.name[title] { cursor:help; }
details.mm { margin:4px 0 0; } details.mm summary { font-weight:normal; color:var(--muted); font-size:12px; }
ul.diag { margin:0 0 8px; padding-left:20px; } ul.diag li { margin:2px 0; }
.rec { background:#eef5ff; border-left:4px solid var(--accent); padding:6px 10px; border-radius:4px; }
.saving { float:right; font-weight:600; }
.charts { display:grid; grid-template-columns:repeat(auto-fill, minmax(560px, 1fr)); gap:12px; align-items:start; }
figure.chart { margin:0; background:var(--card); border:1px solid var(--line); border-radius:8px; padding:10px 12px; }
figure.chart figcaption { font-weight:600; margin-bottom:4px; }
figure.chart .note { color:var(--muted); font-size:12px; }
#critical-path .cpbar { height:10px; background:var(--accent, #4c78a8); border-radius:2px; min-width:1px; }
#critical-path .cpnote { color:var(--muted); font-size:12px; }
.chart-body svg { display:block; width:100%; height:auto; }
.chart-body text { font-size:12px; fill:#3c4043; }
.chart-body text.halo { paint-order:stroke; stroke:#fff; stroke-width:4px; stroke-linejoin:round; }
.chart-body .axis line, .chart-body .grid line { stroke:#e3e6ea; }
.legend { display:flex; flex-wrap:wrap; gap:4px 14px; font-size:12px; margin-top:6px; }
.legend i { display:inline-block; width:10px; height:10px; border-radius:2px; margin-right:5px; vertical-align:-1px; }
details { margin:8px 0; } summary { cursor:pointer; font-weight:600; }
.empty { color:var(--muted); font-style:italic; }
footer { color:var(--muted); font-size:12px; margin-top:32px; }
@media print { .charts { grid-template-columns:1fr; } details { display:block; } }
)css";

inline constexpr const char* kScript = R"js(
(function () {
  'use strict';
  var NS = 'http://www.w3.org/2000/svg';
  var errors = [];
  var CHART_W = 640;  // viewBox width: charts scale to their box, text stays readable
  var data = JSON.parse(document.getElementById('ampscope-data').textContent);

  function el(tag, attrs, parent) {
    var e = document.createElementNS(NS, tag);
    if (attrs) for (var k in attrs) if (Object.prototype.hasOwnProperty.call(attrs, k)) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function txt(parent, x, y, s, attrs) {
    attrs = attrs || {};
    if (attrs.fill) { attrs.style = 'fill:' + attrs.fill; delete attrs.fill; }  // beats the stylesheet's text fill
    var t = el('text', attrs, parent);
    t.setAttribute('x', x); t.setAttribute('y', y);
    t.textContent = s;
    return t;
  }
  function tip(node, s) { var t = el('title', null, node); t.textContent = s; }
  function svg(container, w, h, label) {
    var s = el('svg', { viewBox: '0 0 ' + w + ' ' + h, role: 'img', 'aria-label': label, preserveAspectRatio: 'xMinYMin meet' });
    container.appendChild(s);
    return s;
  }
  function finish(s, marks) { s.setAttribute('data-marks', String(marks)); return marks; }
  function niceMax(v) {
    if (!(v > 0)) return 1;
    var p = Math.pow(10, Math.floor(Math.log(v) / Math.LN10)), m = v / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 2.5 ? 2.5 : m <= 5 ? 5 : 10) * p;
  }
  function fmt(v, d) {
    if (v === null || v === undefined || !isFinite(v)) return 'n/a';
    return Number(v).toFixed(d === undefined ? 1 : d);
  }
  function short(s, n) { s = String(s); return s.length > n ? s.slice(0, n - 1) + '\u2026' : s; }
  function empty(container, w, message) {
    var s = svg(container, w, 40, message);
    txt(s, 8, 24, message, { class: 'empty' });
    return finish(s, 0);
  }
  function legend(container, items) {
    var d = document.createElement('div');
    d.className = 'legend';
    items.forEach(function (it) {
      var span = document.createElement('span'), sw = document.createElement('i');
      sw.style.background = it[1];
      sw.setAttribute('data-colour', it[1]);
      if (it[2]) for (var a in it[2]) if (Object.prototype.hasOwnProperty.call(it[2], a)) span.setAttribute(a, it[2][a]);
      span.appendChild(sw);
      span.appendChild(document.createTextNode(it[0]));
      d.appendChild(span);
    });
    container.appendChild(d);
  }
  function yAxis(s, x0, y0, w, h, max, unit) {
    var g = el('g', { class: 'grid' }, s);
    for (var i = 0; i <= 4; i++) {
      var v = max * i / 4, y = y0 + h - h * i / 4;
      el('line', { x1: x0, x2: x0 + w, y1: y, y2: y }, g);
      txt(s, x0 - 6, y + 4, fmt(v, v >= 10 || v === 0 ? 0 : 1) + unit, { 'text-anchor': 'end' });
    }
  }

  // Step numbers under the bars: about 10 ticks; a bucket ("5-25") is labelled by its first step.
  function stepTicks(s, st, L, bw, H) {
    var n = st.labels.length, every = Math.max(1, Math.ceil(n / 10));
    for (var j = 0; j < n; j += every) {
      var label = String(st.labels[j]);
      if (st.bucket_size > 1) label = label.split('-')[0];
      txt(s, L + j * bw + bw / 2, H - 14, label, { 'text-anchor': 'middle' });
    }
  }

  var PALETTE = ['#1a73e8', '#e8710a', '#1e8e3e', '#d93025', '#9334e6', '#12b5cb', '#f9ab00', '#e52592',
                 '#5f6368', '#188038', '#a142f4', '#b06000', '#185abc', '#80868b', '#c5221f'];
  var PRECISION = { fp8: '#7b1fa2', fp16: '#1e8e3e', bf16: '#34a853', tf32: '#1a73e8', fp32: '#e8710a',
                    fp64: '#c5221f', int8: '#9334e6', unknown: '#9aa0a6' };
  var IDLE = { busy: '#1e8e3e', host_wait: '#d93025', kernel_wait: '#f9ab00', other: '#9aa0a6' };

  // Step time per step: bars (means of buckets when there are many steps) with min..max
  // whiskers, and the median as a dashed line.
  function stepTime(c) {
    var st = data.steps;
    if (!st || !st.duration_ms || !st.duration_ms.length) return empty(c, CHART_W, 'No steps were detected in this trace.');
    var W = CHART_W, H = 260, L = 60, R = 12, T = 14, B = 34, pw = W - L - R, ph = H - T - B;
    var n = st.duration_ms.length, hi = st.max_ms || st.duration_ms;
    var max = niceMax(Math.max.apply(null, hi));
    var s = svg(c, W, H, 'Step time per step');
    yAxis(s, L, T, pw, ph, max, ' ms');
    var bw = pw / n, marks = 0;
    for (var i = 0; i < n; i++) {
      var v = st.duration_ms[i], h = Math.max(1, ph * v / max), x = L + i * bw;
      var r = el('rect', { x: x + bw * 0.1, y: T + ph - h, width: Math.max(1, bw * 0.8), height: h, fill: '#1a73e8' }, s);
      var label = (st.bucket_size > 1 ? 'steps ' + st.labels[i] : 'step ' + st.labels[i]) + ': ' + fmt(v, 2) + ' ms';
      if (st.min_ms) {
        label += ' (min ' + fmt(st.min_ms[i], 2) + ', max ' + fmt(st.max_ms[i], 2) + ')';
        var cx = x + bw / 2;
        el('line', { x1: cx, x2: cx, y1: T + ph - ph * st.max_ms[i] / max, y2: T + ph - ph * st.min_ms[i] / max,
                     stroke: '#174ea6', 'stroke-width': 1 }, s);
      }
      tip(r, label);
      marks++;
    }
    stepTicks(s, st, L, bw, H);
    txt(s, L + pw / 2, H - 1, st.bucket_size > 1 ? 'step (' + st.bucket_size + ' steps per bar)' : 'step', { 'text-anchor': 'middle' });
    if (st.median_ms > 0) {
      var my = T + ph - ph * st.median_ms / max;
      el('line', { x1: L, x2: L + pw, y1: my, y2: my, stroke: '#d93025', 'stroke-dasharray': '5 4' }, s);
      txt(s, L + pw - 4, my - 4, 'median ' + fmt(st.median_ms, 1) + ' ms', { 'text-anchor': 'end', fill: '#d93025', class: 'halo' });
    }
    return finish(s, marks);
  }

  // Horizontal bars: items are [label, value(0-100), tooltip, colour].
  function hbars(c, items, title, emptyMessage, labelWidth) {
    if (!items || !items.length) return empty(c, CHART_W, emptyMessage);
    var W = CHART_W, row = 22, T = 6, L = labelWidth || 170, R = 64, H = T + row * items.length + 6, pw = W - L - R;
    var max = 0;
    items.forEach(function (it) { max = Math.max(max, it[1]); });
    max = max > 0 ? max : 1;
    var s = svg(c, W, H, title), marks = 0;
    items.forEach(function (it, i) {
      var y = T + i * row, w = Math.max(1, pw * it[1] / max);
      var label = txt(s, L - 8, y + 15, short(it[0], Math.floor((L - 12) / 7.2)), { 'text-anchor': 'end' });
      tip(label, it[2] || it[0]);
      var attrs = { x: L, y: y + 3, width: w, height: row - 6, rx: 2, fill: it[3] || PALETTE[i % PALETTE.length] };
      if (it[4]) for (var a in it[4]) if (Object.prototype.hasOwnProperty.call(it[4], a)) attrs[a] = it[4][a];
      var r = el('rect', attrs, s);
      tip(r, (it[2] || it[0]) + ': ' + fmt(it[1]) + '%');
      txt(s, L + w + 6, y + 15, fmt(it[1]) + '%');
      marks++;
    });
    return finish(s, marks);
  }

  // One 100% bar split in segments [label, value, colour] with a legend.
  function stacked100(c, segments, title, emptyMessage) {
    segments = (segments || []).filter(function (x) { return x[1] > 0; });
    if (!segments.length) return empty(c, CHART_W, emptyMessage);
    var W = CHART_W, H = 46, L = 4, pw = W - 8, total = 0, x = L, marks = 0;
    segments.forEach(function (sg) { total += sg[1]; });
    var s = svg(c, W, H, title);
    segments.forEach(function (sg) {
      var w = pw * sg[1] / total;
      var r = el('rect', { x: x, y: 6, width: Math.max(0.5, w), height: 34, fill: sg[2] }, s);
      tip(r, sg[0] + ': ' + fmt(sg[1]) + '%');
      if (w > 46) txt(s, x + w / 2, 28, fmt(sg[1], 0) + '%', { 'text-anchor': 'middle', fill: '#fff', 'font-weight': 600 });
      x += w;
      marks++;
    });
    legend(c, segments.map(function (sg) { return [sg[0] + ' ' + fmt(sg[1]) + '%', sg[2]]; }));
    return finish(s, marks);
  }

  // GPU busy/idle per step: stacked columns (kernels, other GPU work, idle) to 100%.
  function busyTimeline(c) {
    var st = data.steps;
    if (!st || !st.busy_pct || !st.busy_pct.length) return empty(c, CHART_W, 'No per-step GPU numbers (no steps detected).');
    var W = CHART_W, H = 240, L = 44, R = 12, T = 12, B = 34, pw = W - L - R, ph = H - T - B;
    var n = st.busy_pct.length, bw = pw / n, marks = 0;
    var s = svg(c, W, H, 'GPU busy and idle per step');
    yAxis(s, L, T, pw, ph, 100, '%');
    for (var i = 0; i < n; i++) {
      var busy = Math.min(100, Math.max(0, st.busy_pct[i] || 0));
      var kern = Math.min(busy, Math.max(0, st.kernel_busy_pct ? st.kernel_busy_pct[i] || 0 : busy));
      var parts = [['kernels', kern, IDLE.busy], ['copies/memsets', busy - kern, '#81c995'], ['idle', 100 - busy, '#f28b82']];
      var y = T + ph, x = L + i * bw + bw * 0.1, w = Math.max(1, bw * 0.8);
      parts.forEach(function (p) {
        if (p[1] <= 0) return;
        var h = ph * p[1] / 100;
        y -= h;
        var r = el('rect', { x: x, y: y, width: w, height: h, fill: p[2] }, s);
        tip(r, (st.bucket_size > 1 ? 'steps ' : 'step ') + st.labels[i] + ' ' + p[0] + ': ' + fmt(p[1]) + '%');
      });
      marks++;
    }
    stepTicks(s, st, L, bw, H);
    txt(s, L + pw / 2, H - 1, 'step', { 'text-anchor': 'middle' });
    legend(c, [['kernels', IDLE.busy], ['copies/memsets', '#81c995'], ['idle', '#f28b82']]);
    return finish(s, marks);
  }

  // Per-rank step time (ranks > 1), bars coloured by GPU busy.
  function ranks(c) {
    var rk = data.ranks;
    if (!rk || !rk.length) return empty(c, CHART_W, 'Single rank.');
    var W = CHART_W, H = 220, L = 60, R = 12, T = 12, B = 34, pw = W - L - R, ph = H - T - B;
    var max = 0;
    rk.forEach(function (r) { max = Math.max(max, r[1] || 0); });
    max = niceMax(max);
    var s = svg(c, W, H, 'Step time by rank'), bw = pw / rk.length, marks = 0;
    yAxis(s, L, T, pw, ph, max, ' ms');
    rk.forEach(function (r, i) {
      var h = Math.max(1, ph * (r[1] || 0) / max), busy = r[2];
      var colour = busy === null ? '#9aa0a6' : busy >= 80 ? '#1e8e3e' : busy >= 60 ? '#f9ab00' : '#d93025';
      var rect = el('rect', { x: L + i * bw + bw * 0.1, y: T + ph - h, width: Math.max(1, bw * 0.8), height: h, fill: colour }, s);
      tip(rect, 'rank ' + r[0] + ': step mean ' + fmt(r[1], 2) + ' ms, GPU busy ' + fmt(busy) + '%');
      marks++;
    });
    var every = Math.max(1, Math.ceil(rk.length / 16));
    for (var j = 0; j < rk.length; j += every) txt(s, L + j * bw + bw / 2, H - 14, String(rk[j][0]), { 'text-anchor': 'middle' });
    txt(s, L + pw / 2, H - 1, 'rank (colour: GPU busy \u2265 80% green, \u2265 60% amber, else red)', { 'text-anchor': 'middle' });
    return finish(s, marks);
  }

  var charts = {
    'step-time': stepTime,
    'gpu-categories': function (c) {
      return hbars(c, (data.categories || []).map(function (x, i) { return [x[0], x[1], null, PALETTE[i % PALETTE.length]]; }),
                   'GPU kernel time by category', 'No kernel time in the analysed window.', 150);
    },
    'precision': function (c) {
      return stacked100(c, (data.precision || []).map(function (x) { return [x[0], x[1], PRECISION[x[0]] || '#5f6368']; }),
                        'Precision mix of kernel time', 'No kernel time in the analysed window.');
    },
    'idle-breakdown': function (c) {
      var d = data.idle || {};
      return stacked100(c, [['busy', d.busy, IDLE.busy], ['host_wait', d.host_wait, IDLE.host_wait],
                            ['kernel_wait', d.kernel_wait, IDLE.kernel_wait], ['other idle', d.other, IDLE.other]],
                        'GPU busy and idle breakdown', 'No GPU time numbers.');
    },
    'busy-timeline': busyTimeline,
    'top-kernels': function (c) {
      // Bars are coloured by the kernel's class (Tensor Core use, then precision); the legend
      // lists exactly those classes with the same colours.
      var classes = {};
      (data.kernel_classes || []).forEach(function (k) { classes[k[0]] = k; });
      var marks = hbars(c, (data.top_kernels || []).map(function (k) {
        var cls = classes[k[6]] || ['other', 'unknown', '#9aa0a6', false];
        return [k[0], k[1], k[5] + ' [' + k[2] + ', ' + k[3] + (k[4] ? ', Tensor Cores' : ', no Tensor Cores') + ']',
                cls[2], { 'data-tc': k[4] ? '1' : '0', 'data-class': cls[0] }];
      }), 'Top kernels by GPU time', 'No kernels.', 330);
      if ((data.top_kernels || []).length)
        legend(c, (data.kernel_classes || []).map(function (k) {
          return [k[1], k[2], { 'data-tc': k[3] ? '1' : '0', 'data-class': k[0] }];
        }));
      return marks;
    },
    'ranks': ranks
  };

  var bodies = document.querySelectorAll('[data-chart]');
  for (var i = 0; i < bodies.length; i++) {
    var c = bodies[i], name = c.getAttribute('data-chart');
    try {
      if (!charts[name]) throw new Error('unknown chart ' + name);
      charts[name](c);
      c.setAttribute('data-rendered', 'ok');
    } catch (e) {
      errors.push(name + ': ' + e);
      c.setAttribute('data-rendered', 'error');
      c.textContent = 'This chart could not be drawn: ' + e;
      if (window.console) console.error('ampscope chart ' + name + ': ' + e);
    }
  }
  document.body.setAttribute('data-render', errors.length ? 'errors' : 'ok');
})();
)js";

}  // namespace ampscope::render::html_assets
