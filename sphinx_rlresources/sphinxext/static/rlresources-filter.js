/*
 * sphinx-rlresources: reader-side filters for rl-resource-table.
 *
 * The page holds the whole table; this script only adds controls above it and hides
 * the rows that do not match, so a reader without JavaScript still sees every row.
 * Row values come from the rows' data-rl-* attributes and are only ever written with
 * textContent and option values, never as HTML. No dependencies, no network.
 */
(function () {
  "use strict";

  var CHOICES = ["size", "tag", "task", "device", "train", "infer"];
  var counter = 0;

  // Sizes go by parameter count (0.5B before 7B before 70B), as the build ordered them
  // (data-rl-size-order: "0:7e+09"); every other choice alphabetically.
  function order(row, field) {
    if (field !== "size") { return null; }
    var parts = (row.getAttribute("data-rl-size-order") || "1:0").split(":");
    return [Number(parts[0]), Number(parts[1])];
  }

  function distinct(rows, field) {
    var seen = {};
    var rank = {};
    rows.forEach(function (row) {
      var value = row.getAttribute("data-rl-" + field) || "";
      var key = value.toLowerCase();
      if (value && !(key in seen)) {
        seen[key] = value;
        rank[key] = order(row, field);
      }
    });
    return Object.keys(seen).sort(function (a, b) {
      var x = rank[a], y = rank[b];
      if (x && y && (x[0] !== y[0] || x[1] !== y[1])) {
        return x[0] !== y[0] ? x[0] - y[0] : x[1] - y[1];
      }
      return a < b ? -1 : a > b ? 1 : 0;
    }).map(function (key) { return seen[key]; });
  }

  function labelled(form, id, words, control) {
    var label = document.createElement("label");
    label.className = "rlresources-filter-field";
    label.setAttribute("for", id);
    var span = document.createElement("span");
    span.textContent = words;
    label.appendChild(span);
    control.id = id;
    label.appendChild(control);
    form.appendChild(label);
    return control;
  }

  function setup(container) {
    var strings = {};
    try {
      strings = JSON.parse(container.getAttribute("data-rl-strings") || "{}");
    } catch (err) {
      strings = {};
    }
    function say(key, fallback) { return strings[key] || fallback; }

    var rows = Array.prototype.slice.call(container.querySelectorAll("tr[data-rl-gpus]"));
    if (!rows.length || container.querySelector(".rlresources-filter-controls")) {
      return;
    }
    counter += 1;
    var id = "rlresources-filter-" + counter;

    var form = document.createElement("form");
    form.className = "rlresources-filter-controls";
    form.setAttribute("role", "search");
    form.setAttribute("aria-label", say("legend", "Filter the configurations"));
    form.addEventListener("submit", function (event) { event.preventDefault(); });

    var gpus = document.createElement("input");
    gpus.type = "number";
    gpus.min = "1";
    gpus.step = "1";
    gpus.inputMode = "numeric";
    gpus.placeholder = say("any", "Any");
    gpus.name = "gpus";
    labelled(form, id + "-gpus", say("gpus", "Max. GPUs"), gpus);

    var selects = {};
    CHOICES.forEach(function (field) {
      var values = distinct(rows, field);
      if (field === "size" && values.length < 2) {
        return; // a one-size table needs no size control
      }
      var select = document.createElement("select");
      select.name = field;
      var any = document.createElement("option");
      any.value = "";
      any.textContent = say("any", "Any");
      select.appendChild(any);
      values.forEach(function (value) {
        var option = document.createElement("option");
        option.value = value;
        option.textContent = value;
        select.appendChild(option);
      });
      selects[field] = labelled(form, id + "-" + field, say(field, field), select);
    });

    var reset = document.createElement("button");
    reset.type = "button";
    reset.className = "rlresources-filter-reset";
    reset.textContent = say("reset", "Show all");
    form.appendChild(reset);

    var status = document.createElement("p");
    status.className = "rlresources-filter-status";
    status.id = id + "-status";
    status.setAttribute("role", "status");
    status.setAttribute("aria-live", "polite");

    function update() {
      var limit = parseInt(gpus.value, 10);
      var shown = 0;
      rows.forEach(function (row) {
        var ok = isNaN(limit) || Number(row.getAttribute("data-rl-gpus")) <= limit;
        Object.keys(selects).forEach(function (field) {
          var wanted = selects[field].value.toLowerCase();
          if (ok && wanted && (row.getAttribute("data-rl-" + field) || "").toLowerCase() !== wanted) {
            ok = false;
          }
        });
        row.hidden = !ok;
        if (ok) {
          shown += 1;
        }
      });
      var text = say("status", "{shown} of {total} configurations match.")
        .replace("{shown}", String(shown))
        .replace("{total}", String(rows.length));
      if (!shown) {
        text += " " + say("none", "No configuration matches.");
      }
      status.textContent = text;
      container.classList.toggle("rlresources-filter-active", shown < rows.length);
      // the widest cells may have left with the hidden rows: rlresources-layout.js sizes the table again
      document.dispatchEvent(new CustomEvent("rlresources:filtered"));
    }

    // A link such as hardware.html?gpus=2&device=H100 opens the page filtered.
    var params = new URLSearchParams(window.location.search);
    if (params.has("gpus")) {
      gpus.value = String(parseInt(params.get("gpus"), 10) || "");
    }
    Object.keys(selects).forEach(function (field) {
      var wanted = (params.get(field) || "").toLowerCase();
      Array.prototype.forEach.call(selects[field].options, function (option) {
        if (wanted && option.value.toLowerCase() === wanted) {
          selects[field].value = option.value;
        }
      });
    });

    form.addEventListener("input", update);
    form.addEventListener("change", update);
    reset.addEventListener("click", function () {
      form.reset();
      update();
      gpus.focus();
    });

    // Themes may wrap the table (furo adds a scrolling div), so insert at the top.
    var table = container.querySelector("table");
    container.insertBefore(form, container.firstChild);
    container.insertBefore(status, form.nextSibling);
    if (table) {
      table.setAttribute("aria-describedby", status.id);
    }
    update();
  }

  function init() {
    Array.prototype.forEach.call(document.querySelectorAll(".rlresources-filter"), setup);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
