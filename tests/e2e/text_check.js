// Text that does not fit its box: clipped by overflow hidden or cut by an ellipsis (unless the
// whole text is in a title or aria-label), a button whose label spills out, a scrolling action
// bar, and (on phones) a hand or action bar below the first screen.
// Evaluated by tests/e2e/helpers.py (text_problems); returns a list of sentences.
({ phone }) => {
  const problems = [];
  const visible = (el) => {
    const s = getComputedStyle(el);
    if (s.display === 'none' || s.visibility === 'hidden') return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };
  const name = (el) => {
    const cls = el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\s+/).join('.') : '';
    return `${el.tagName.toLowerCase()}${cls}`;
  };
  const text = (el) => (el.textContent || '').replace(/\s+/g, ' ').trim();
  const described = (el, words) => {
    for (let n = el; n && n !== document.body; n = n.parentElement) {
      const label = `${n.getAttribute('title') || ''} ${n.getAttribute('aria-label') || ''}`;
      if (label.includes(words)) return true;
    }
    return false;
  };
  const root = document.querySelector('main') || document.body;
  for (const el of root.querySelectorAll('*')) {
    // Cards draw their faces inside a clipped box (checked by layout_check.js); sr-only text
    // is clipped on purpose; scrolling lists (chat, score sheet) scroll.
    if (el.closest('.card, .sr-only, .chip') || !visible(el)) continue;
    const words = text(el);
    if (!words) continue;
    const s = getComputedStyle(el);
    const clipsX = /hidden|clip/.test(s.overflowX);
    const clipsY = /hidden|clip/.test(s.overflowY);
    const wide = el.scrollWidth > el.clientWidth + 1;
    const tall = el.scrollHeight > el.clientHeight + 1;
    if (clipsX && wide) {
      // A player's name is never shortened, title or not ("Comput…" twice looked alike).
      if (s.textOverflow === 'ellipsis' && described(el, words) && !el.closest('.seat-name, .slot-name')) continue;
      problems.push(`"${words.slice(0, 60)}" is cut off (${name(el)}: ${el.scrollWidth}px of text in ${el.clientWidth}px)`);
    } else if (clipsY && tall) {
      problems.push(`"${words.slice(0, 60)}" is cut off below (${name(el)}: ${el.scrollHeight}px in ${el.clientHeight}px)`);
    } else if (el.tagName === 'BUTTON' && wide) {
      problems.push(`button "${words.slice(0, 40)}" spills out of its box (${el.scrollWidth}px in ${el.clientWidth}px)`);
    }
  }
  const bar = document.querySelector('.action-bar');
  if (bar && visible(bar)) {
    if (bar.scrollHeight > bar.clientHeight + 1) {
      problems.push(`the action bar's content (${bar.scrollHeight}px) does not fit its ${bar.clientHeight}px`);
    }
    if (phone) {
      const limit = window.innerHeight;
      const bottom = (el) => el.getBoundingClientRect().bottom + window.scrollY;
      if (bottom(bar) > limit + 1) problems.push(`the action bar ends at ${Math.round(bottom(bar))}px, below the first screen (${limit}px)`);
      const cards = [...document.querySelectorAll('.hand-cards .card')].filter(visible);
      const low = cards.length ? Math.max(...cards.map(bottom)) : 0;
      if (low > limit + 1) problems.push(`the hand ends at ${Math.round(low)}px, below the first screen (${limit}px)`);
    }
  }
  return problems;
}
