/* Report stage: the report's only script, inlined into the page. It only
   enhances a page that already reads well without it: click-to-sort table
   headers (keyboard accessible, aria-sort), a CSV download per table built
   from the table itself, the current section marked in the contents, and
   every <details> opened for printing. No network access of any kind.
   Errors are recorded on <html data-js-errors> by a handler in <head>;
   the end of this script sets <html data-js-ready="1">. */
(function () {
  "use strict";
  var root = document.documentElement;
  var each = function (list, f) { Array.prototype.forEach.call(list, f); };

  /* ---- Sorting ------------------------------------------------------- */
  function sortKey(cell, numeric) {
    if (!cell) { return numeric ? NaN : ""; }
    var v = cell.getAttribute("data-value");
    if (numeric) { return v === null || v === "" ? NaN : parseFloat(v); }
    return (v !== null && v !== "" ? v : cell.textContent).trim();
  }

  function sortTable(table, col, th) {
    var dir = th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending";
    each(table.tHead.rows[0].cells, function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", dir);
    var numeric = th.classList.contains("num");
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var sign = dir === "ascending" ? 1 : -1;
    var keyed = rows.map(function (row, i) {
      return { row: row, i: i, key: sortKey(row.cells[col], numeric) };
    });
    keyed.sort(function (a, b) {
      var c;
      if (numeric) {
        var an = isNaN(a.key), bn = isNaN(b.key);
        if (an || bn) { c = an && bn ? 0 : (an ? 1 : -1); return c || a.i - b.i; }
        c = sign * (a.key - b.key);
      } else {
        c = sign * a.key.localeCompare(b.key, undefined, { numeric: true, sensitivity: "base" });
      }
      return c || a.i - b.i;
    });
    keyed.forEach(function (k) { body.appendChild(k.row); });
  }

  each(document.querySelectorAll("table.sortable"), function (table) {
    if (!table.tHead || !table.tBodies.length) { return; }
    each(table.tHead.rows[0].cells, function (th, col) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "sort";
      while (th.firstChild) { button.appendChild(th.firstChild); }
      var label = th.getAttribute("data-name") || button.textContent.trim() || "row labels";
      button.setAttribute("aria-label", "Sort by " + label);
      if (th.title) { button.title = th.title; }
      th.appendChild(button);
      button.addEventListener("click", function () { sortTable(table, col, th); });
    });
  });

  /* ---- CSV download -------------------------------------------------- */
  function csvField(cell) {
    var v = cell.getAttribute("data-value") || cell.getAttribute("data-name");
    var text = v !== null && v !== "" ? v : cell.textContent.trim();
    if (text === "n/a") { text = ""; }
    if (v === null && /^[=+@\t\r]/.test(text)) { text = "'" + text; }
    return /[",\r\n]/.test(text) ? "\"" + text.replace(/"/g, "\"\"") + "\"" : text;
  }

  function tableCsv(table) {
    var lines = [];
    each(table.rows, function (row) {
      var fields = [];
      each(row.cells, function (cell) { fields.push(csvField(cell)); });
      lines.push(fields.join(","));
    });
    return lines.join("\r\n") + "\r\n";
  }

  each(document.querySelectorAll(".table-block[data-csv]"), function (block) {
    var table = block.querySelector("table");
    if (!table || typeof Blob === "undefined" || !window.URL || !URL.createObjectURL) { return; }
    var tools = block.querySelector(".table-head") || block;
    var button = document.createElement("button");
    button.type = "button";
    button.className = "csv";
    button.textContent = "Download CSV";
    var caption = table.caption ? table.caption.textContent.trim() : "";
    button.setAttribute("aria-label", "Download as CSV: " + caption);
    button.addEventListener("click", function () {
      var blob = new Blob(["\ufeff" + tableCsv(table)], { type: "text/csv;charset=utf-8" });
      var a = document.createElement("a");
      a.href = URL.createObjectURL(blob);
      a.download = block.getAttribute("data-csv");
      document.body.appendChild(a);
      a.click();
      setTimeout(function () { URL.revokeObjectURL(a.href); a.remove(); }, 0);
    });
    tools.appendChild(button);
  });

  /* ---- Current section in the contents ------------------------------- */
  var links = {};
  each(document.querySelectorAll(".toc a[href^='#']"), function (a) {
    links[decodeURIComponent(a.getAttribute("href").slice(1))] = a;
  });
  if ("IntersectionObserver" in window) {
    var current = null;
    var observer = new IntersectionObserver(function (entries) {
      entries.forEach(function (entry) {
        if (!entry.isIntersecting) { return; }
        var a = links[entry.target.id];
        if (!a) { return; }
        if (current) { current.classList.remove("active"); }
        a.classList.add("active");
        current = a;
      });
    }, { rootMargin: "0px 0px -70% 0px" });
    Object.keys(links).forEach(function (id) {
      var target = document.getElementById(id);
      if (target) { observer.observe(target); }
    });
  }

  /* ---- Narrow screens: the contents collapsed, the header first ----- */
  var tocBox = document.querySelector(".toc-box");
  if (tocBox && window.matchMedia && window.matchMedia("(max-width: 1099px)").matches) {
    tocBox.open = false;
  }

  /* ---- Tables wider than their box say that they scroll -------------- */
  function markScrolling() {
    each(document.querySelectorAll(".table-block"), function (block) {
      var box = block.querySelector(".table-scroll");
      if (box) { block.classList.toggle("scrolls", box.scrollWidth > box.clientWidth + 1); }
    });
  }
  markScrolling();
  window.addEventListener("resize", markScrolling);

  /* ---- Printing: show the content of every <details> ---------------- */
  var closed = [];
  window.addEventListener("beforeprint", function () {
    each(document.querySelectorAll("details:not([open])"), function (d) {
      closed.push(d);
      d.open = true;
    });
  });
  window.addEventListener("afterprint", function () {
    closed.forEach(function (d) { d.open = false; });
    closed = [];
  });

  root.setAttribute("data-js-ready", "1");
})();
