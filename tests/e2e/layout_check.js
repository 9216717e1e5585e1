// Layout problems on the page: overlaps, things outside the window, hidden card corners.
// Evaluated by tests/e2e/helpers.py (layout_problems); returns a list of sentences.
() => {
  const problems = [];
  const W = window.innerWidth;
  const visible = (el) => {
    if (!el) return false;
    const s = getComputedStyle(el);
    if (s.display === 'none' || s.visibility === 'hidden') return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };
  const box = (el) => el.getBoundingClientRect();
  const name = (el) => el.className ? `${el.tagName.toLowerCase()}.${String(el.className).split(' ').join('.')}` : el.tagName;
  const overlap = (a, b) => {
    const r = box(a), q = box(b);
    const x = Math.min(r.right, q.right) - Math.max(r.left, q.left);
    const y = Math.min(r.bottom, q.bottom) - Math.max(r.top, q.top);
    return x > 1 && y > 1;
  };
  const pairwise = (els, what) => {
    els = els.filter(visible);
    for (let i = 0; i < els.length; i++)
      for (let j = i + 1; j < els.length; j++)
        if (overlap(els[i], els[j])) problems.push(`${what}: ${name(els[i])} overlaps ${name(els[j])}`);
  };
  if (document.scrollingElement.scrollWidth > W + 1) problems.push(`page is ${document.scrollingElement.scrollWidth}px wide for a ${W}px window`);
  for (const el of document.querySelectorAll('main *')) {
    if (!visible(el) || el.closest('.cards-row') || el.closest('.chat-log') || el.closest('.sheet-wrap')) continue;
    const r = box(el);
    if (r.right > W + 1 || r.left < -1) { problems.push(`${name(el)} sticks out of the window (${Math.round(r.left)}..${Math.round(r.right)})`); break; }
  }
  const q = (s) => [...document.querySelectorAll(s)];
  // The top bar: its links, buttons and the player's name side by side, none outside the window.
  const bar = q('.topbar a, .topbar button, .topbar .who-name').filter(visible);
  pairwise(bar, 'top bar');
  for (const el of bar) {
    const r = box(el);
    if (r.right > W + 1 || r.left < -1) problems.push(`top bar: ${name(el)} is outside the window (${Math.round(r.left)}..${Math.round(r.right)})`);
  }
  pairwise([...q('.table-head'), ...q('.felt'), ...q('.action-bar'), ...q('.my-cards'), ...q('.side-col')], 'regions');
  const center = q('.center-panel').filter(visible);
  pairwise([...q('.felt .seat'), ...q('.trick-area').filter(() => !center.length), ...center], 'table');
  pairwise(q('.trick .slot .card'), 'trick');
  pairwise(q('.trick .slot .slot-name'), 'trick names');
  // Overlapping hand cards must leave every corner index readable.
  for (const row of q('.cards-row')) {
    const cards = [...row.querySelectorAll('.card')];
    for (let i = 0; i + 1 < cards.length; i++) {
      const a = box(cards[i]), b = box(cards[i + 1]);
      if (Math.abs(a.top - b.top) > 20) continue; // next grid row
      for (const idx of cards[i].querySelectorAll('.idx')) {
        if (box(idx).right > b.left + 1) problems.push(`card ${cards[i].dataset.card} index hidden by ${cards[i + 1].dataset.card}`);
      }
    }
    for (const card of cards) {
      const r = box(card);
      if (r.right > W + 1 || r.left < -1) problems.push(`card ${card.dataset.card} is outside the window`);
    }
  }
  return problems;
}
