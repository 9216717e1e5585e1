// Motion on the felt (Web Animations API, transforms and opacity only, so nothing else on the
// page moves): a played card travels from its seat (or from one's own hand) to its place in
// the trick; a complete trick stays a moment, then slides to its winner's seat.
//
// Off with the "Short animations" setting off (html.no-anim, static/js/prefs.js) and whenever
// the system asks for reduced motion. Animations never hold a state back: every new state
// first finishes whatever is still moving (settle), then is drawn at once.

export const FLY_MS = 320; // a card from its seat to the trick
export const LINGER_MS = 1000; // a complete trick stays this long before it is gathered
export const GATHER_MS = 450; // the trick sliding to its winner

const reduce = window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)") : null;

export class TableMotion {
  constructor() {
    // Until this time (Date.now()) a hand's result panel waits: the last trick is being seen.
    this.holdUntil = 0;
    this.holding = false;
    this.running = new Set(); // Animation objects still moving
    this.gatherTimer = null;
    this.sliding = 0; // cards of a trick still sliding to its winner
    // Called once a trick is gathered (or its gathering given up): the hand's result, held
    // meanwhile, may show (table.js).
    this.onGathered = null;
  }

  /** Whether a complete trick is still to be gathered or on its way. */
  gathering() {
    return this.gatherTimer !== null || this.sliding > 0;
  }

  /** Hold a hand's result (or the game over) for ``ms`` and until the trick being seen is
   *  gathered: a busy page's timers and frames run late, and the panel had covered the last
   *  trick before it left. */
  hold(ms) {
    this.holdUntil = Date.now() + ms;
    this.holding = true;
  }

  /** Whether the result still waits (see hold). */
  held() {
    if (Date.now() < this.holdUntil) return true;
    if (this.holding && this.gathering()) return true;
    this.holding = false; // a later trick's gathering holds nothing
    return false;
  }

  /** A trick's gathering ended: a result held for it may show now (only then: redrawing the
   *  centre at every trick would take the focus from an open "Last trick" panel's button). */
  gathered() {
    if (this.holding && !this.gathering() && this.onGathered) this.onGathered();
  }

  /** Whether to animate now (the setting and the system's wish, read each time). */
  on() {
    return !document.documentElement.classList.contains("no-anim") && !(reduce && reduce.matches)
      && typeof Element.prototype.animate === "function";
  }

  /** Finish everything in flight (a newer state is about to be drawn): cards jump to their
   *  places, gathered tricks vanish. */
  settle() {
    for (const animation of [...this.running]) animation.finish();
    this.running.clear();
  }

  track(animation, onDone) {
    this.running.add(animation);
    // By the promise, not the "finish" event: its reaction runs as soon as finish() returns
    // control, before the next frame.
    animation.finished.then(() => {
      this.running.delete(animation);
      if (onDone) onDone();
    }, () => this.running.delete(animation));
    return animation;
  }

  /** Cancel the pending gather (the page goes away). */
  stop() {
    clearTimeout(this.gatherTimer);
    this.gatherTimer = null;
    this.settle();
  }

  /** A card just placed in the trick (node: its slot) comes from the rectangle `from`. */
  flyIn(node, from) {
    const card = node.querySelector(".card");
    if (!card || !from) return;
    const to = card.getBoundingClientRect();
    if (!to.width) return;
    const dx = from.left + from.width / 2 - (to.left + to.width / 2);
    const dy = from.top + from.height / 2 - (to.top + to.height / 2);
    const scale = Math.min(2, Math.max(0.3, from.width / to.width || 1));
    node.dataset.moving = "in";
    this.track(card.animate(
      [{ transform: `translate(${dx}px, ${dy}px) scale(${scale})` }, { transform: "none" }],
      { duration: FLY_MS, easing: "cubic-bezier(0.2, 0.7, 0.3, 1)" },
    ), () => {
      if (node.dataset.moving === "in") delete node.dataset.moving;
    });
    const name = node.querySelector(".slot-name");
    if (name) this.track(name.animate([{ opacity: 0 }, { opacity: 1 }], { duration: FLY_MS, easing: "ease-in" }));
  }

  /** After LINGER_MS, slide the complete trick's slots (slots(): those still shown then) to
   *  the winner's seat (target(): its element). They stay hidden where they were (the words
   *  under the trick still say who took it; "Last trick" shows it again). A newer state
   *  meanwhile does not wait for this: it ghosts the trick away at once (see trick.js). */
  gatherLater(slots, target) {
    clearTimeout(this.gatherTimer);
    this.gatherTimer = setTimeout(() => {
      this.gatherTimer = null;
      if (this.on()) this.gather(slots(), target());
      this.gathered(); // nothing was left to slide
    }, LINGER_MS);
  }

  /** Slide slots toward the element `to`; `remove`: take them out of the page when done
   *  (the ghosts of a trick that a newer state replaced). */
  gather(slots, to, remove = false) {
    if (!slots.length) return;
    const end = to ? to.getBoundingClientRect() : null;
    for (const slot of slots) {
      const card = slot.querySelector(".card");
      if (!card) continue;
      const from = card.getBoundingClientRect();
      const dx = end ? end.left + end.width / 2 - (from.left + from.width / 2) : 0;
      const dy = end ? end.top + end.height / 2 - (from.top + from.height / 2) : 0;
      slot.dataset.moving = "out";
      this.track(slot.animate([{ opacity: 1 }, { opacity: 0 }], {
        duration: GATHER_MS, easing: "ease-in", fill: "forwards",
      }));
      const slide = this.track(card.animate(
        [{ transform: "none" }, { transform: `translate(${dx}px, ${dy}px) scale(0.45)` }],
        { duration: GATHER_MS, easing: "cubic-bezier(0.5, 0, 0.75, 0)", fill: "forwards" },
      ), () => {
        slot.dataset.moving = "gathered"; // hidden by the stylesheet from now on
        // Back to its place, unseen: a card left at the winner's seat would stick out of the
        // page once the window is resized (a phone turned), widening it.
        slide.cancel();
        if (remove) slot.remove();
      });
      // After the reaction above (the card marked gathered), finished or cancelled.
      this.sliding += 1;
      const done = () => {
        this.sliding -= 1;
        this.gathered();
      };
      slide.finished.then(done, done);
    }
  }
}
