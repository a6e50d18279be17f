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
    };
  });
  const pre = document.createElement('pre');
  pre.id = 'kernelgate-layout';
  pre.textContent = JSON.stringify(layouts);
  document.body.append(pre);
});
