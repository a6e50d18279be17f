// Measures each <iframe> of the page once all have loaded (tests/support/chromium.rs, Chromium::layout)
// and writes the measurements as JSON into a new pre element (id kernelgate-layout), which --dump-dom carries out.
window.addEventListener('load', () => {
  const layouts = [...document.querySelectorAll('iframe')].map((frame) => {
    const doc = frame.contentDocument;
    const root = doc.documentElement;
    const broken = [];
    let mostLines = 0;
    const selector = frame.dataset.unbroken;
    for (const el of selector ? doc.querySelectorAll(selector) : []) {
      const whole = doc.createRange();
      whole.selectNodeContents(el);
      mostLines = Math.max(mostLines, new Set([...whole.getClientRects()].map((r) => Math.round(r.top))).size);
      const walker = doc.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let text = walker.nextNode(); text; text = walker.nextNode()) {
        for (const word of text.data.matchAll(/[^\s\/]+/g)) {
          const range = doc.createRange();
          range.setStart(text, word.index);
          range.setEnd(text, word.index + word[0].length);
          const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
          if (lines.size > 1) broken.push(word[0]);
        }
      }
    }
    // The smallest chart text as drawn: its font size times its chart's scale (drawn width over
    // viewBox width); null without a chart.
    let minChartText = null;
    for (const svg of doc.querySelectorAll('svg.chart')) {
      const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
      for (const text of svg.querySelectorAll('text')) {
        const px = parseFloat(frame.contentWindow.getComputedStyle(text).fontSize) * scale;
        minChartText = minChartText === null ? px : Math.min(minChartText, px);
      }
    }
    // The elements that must be in view whole, side to side: each box against the viewport
    // narrowed by every ancestor that clips or scrolls sideways (as the page opens, scrolled to
    // its left end).
    const win = frame.contentWindow;
    const cut = [];
    let inside = 0;
    for (const el of frame.dataset.inside ? doc.querySelectorAll(frame.dataset.inside) : []) {
      const box = el.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) continue;
      inside += 1;
      let [from, to] = [0, root.clientWidth];
      for (let a = el.parentElement; a && a !== root; a = a.parentElement) {
        if (win.getComputedStyle(a).overflowX !== 'visible') {
          const r = a.getBoundingClientRect();
          from = Math.max(from, r.left + a.clientLeft);
          to = Math.min(to, r.left + a.clientLeft + a.clientWidth);
        }
      }
      const text = el.textContent.trim().replace(/\s+/g, ' ').slice(0, 60);
      if (box.left < from - 0.5 || box.right > to + 0.5) {
        cut.push(`${text}: ${box.left.toFixed(0)}..${box.right.toFixed(0)} px outside the view ${from.toFixed(0)}..${to.toFixed(0)}`);
      } else if (el.scrollWidth > el.clientWidth + 1) {
        cut.push(`${text}: its content is ${el.scrollWidth} px wide in its ${el.clientWidth} px box`);
      }
    }
    // The elements of each svg no two of which may overlap, by their boxes as drawn.
    const overlapping = [];
    let apart = 0;
    for (const svg of frame.dataset.apart ? doc.querySelectorAll('svg') : []) {
      const els = [...svg.querySelectorAll(frame.dataset.apart)].map((el) => [el, el.getBoundingClientRect()]);
      apart += els.length;
      els.forEach(([a, ra], i) => {
        for (const [b, rb] of els.slice(i + 1)) {
          if (ra.left < rb.right && rb.left < ra.right && ra.top < rb.bottom && rb.top < ra.bottom) {
            overlapping.push(`${a.textContent} / ${b.textContent}`);
          }
        }
      });
    }
    const first = doc.body.firstElementChild;
    return {
      name: frame.dataset.name,
      scroll_width: root.scrollWidth,
      client_width: root.clientWidth,
      broken,
      most_lines: mostLines,
      min_chart_text_px: minChartText,
      first: first ? first.tagName.toLowerCase() + (first.className ? '.' + first.className.split(' ').join('.') : '') : '',
      tables: [...doc.querySelectorAll('table')].map((table) => {
        // The box that scrolls the table sideways: the table itself or an ancestor, if any.
        let box = table;
        while (box && box !== doc.body && !['auto', 'scroll'].includes(frame.contentWindow.getComputedStyle(box).overflowX)) {
          box = box.parentElement;
        }
        if (!box || box === doc.body) box = table;
        return [box.scrollWidth, box.clientWidth];
      }),
      inside,
      cut,
      apart,
      overlapping,
    };
  });
  const pre = document.createElement('pre');
  pre.id = 'kernelgate-layout';
  pre.textContent = JSON.stringify(layouts);
  document.body.append(pre);
});
