/*
 * sphinx-rlresources: each resource table takes the largest layout its text column holds.
 *
 * A table of nine or ten columns fits a laptop's text column in most themes and fonts,
 * but not in all: alabaster's Georgia falls back to DejaVu Serif on Linux, which is a
 * sixth wider. So, per table, once the fonts are in and whenever the column's width
 * changes:
 *
 *   1. the table as the stylesheet draws it, if its widest cells fit on one line;
 *   2. else the compact table (text at 86% of the body, tighter padding), if its widest
 *      cells fit, or at least its narrowest layout does (names then wrap at - and _);
 *   3. else cards, one box per row, as on a phone.
 *
 * Each step is measured, never guessed from the window's width, so the answer follows
 * the font the reader really has. Without JavaScript the table stays a table (it scrolls
 * inside its own box if it must) and narrow screens still get cards from the stylesheet.
 * The markup never changes: only a class on the table.
 */
(function () {
  "use strict";

  var TABLES = "table.rlresources-table, table.rlresources-estimate";
  var COMPACT = "rlresources-compact";
  var CARDS = "rlresources-cards";
  var NARROW = "(max-width: 700px)"; // the stylesheet's own cards; nothing to measure there

  function room(table) {
    var box = table.parentElement;
    var style = getComputedStyle(box);
    return box.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  }

  function width(table, mode, size) {
    table.classList.toggle(COMPACT, mode === COMPACT);
    table.style.width = size;
    table.style.maxWidth = "none";
    var found = table.getBoundingClientRect().width;
    table.style.width = "";
    table.style.maxWidth = "";
    return found;
  }

  function choose(table) {
    table.classList.remove(CARDS);
    if (window.matchMedia(NARROW).matches) {
      table.classList.remove(COMPACT);
      return;
    }
    var free = room(table) + 0.5;
    var mode = "";
    if (width(table, "", "max-content") > free) {
      mode = COMPACT;
      if (width(table, COMPACT, "max-content") > free && width(table, COMPACT, "min-content") > free) {
        mode = CARDS;
      }
    }
    table.classList.toggle(COMPACT, mode === COMPACT);
    table.classList.toggle(CARDS, mode === CARDS);
  }

  // The wide chart needs at least 3/4 of its width (its text at 9 pixels); a column that
  // cannot give it that gets the tall chart, which lists the sizes down the side.
  function chart(figure) {
    var svg = figure.querySelector(".rlresources-chart-wide svg");
    if (!svg || !figure.querySelector(".rlresources-chart-tall") || window.matchMedia(NARROW).matches) {
      figure.classList.remove("rlresources-chart-narrow");
      return;
    }
    var needed = parseFloat(svg.style.minWidth) || 0;
    figure.classList.toggle("rlresources-chart-narrow", figure.clientWidth + 0.5 < needed);
  }

  var pending = false;
  function layout() {
    if (pending) {
      return;
    }
    pending = true;
    window.requestAnimationFrame(function () {
      pending = false;
      Array.prototype.forEach.call(document.querySelectorAll(TABLES), choose);
      Array.prototype.forEach.call(document.querySelectorAll("figure.rlresources-chart"), chart);
      document.documentElement.setAttribute("data-rlresources-layout", "done");
    });
  }

  function init() {
    layout();
    if (document.fonts && document.fonts.ready) {
      document.fonts.ready.then(layout);
    }
    window.addEventListener("load", layout);
    window.addEventListener("resize", layout);
    document.addEventListener("rlresources:filtered", layout); // hidden rows change the widest cells
    document.addEventListener("toggle", layout, true); // an estimate row's opened figures widen its cell
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
