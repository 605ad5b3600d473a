/* Wide tables on a phone: a table that does not fit its box becomes a list of cards (site.css, table.cards), each
   card starting with the row's first cell and then its key columns (status, merge rate, stage), every other cell
   labelled with its column's header. base.html loads this on pages with a list table (`table` in the context);
   elsewhere, and without JavaScript, a wide table scrolls sideways inside its own box instead. The page itself
   never does. */
(function () {
  "use strict";
  var KEY = /^(status|final status|merge rate|stage|target stage)$/i;
  var phone = window.matchMedia("(max-width: 640px)");

  function label(table) {
    var heads = Array.prototype.map.call(table.querySelectorAll("thead th"), function (th) {
      return th.textContent.replace(/\s+/g, " ").trim();
    });
    Array.prototype.forEach.call(table.querySelectorAll("tbody tr"), function (tr) {
      Array.prototype.forEach.call(tr.children, function (cell, i) {
        if (heads[i] && !cell.hasAttribute("colspan")) cell.setAttribute("data-label", heads[i]);
        if (KEY.test(heads[i] || "")) cell.classList.add("key");
      });
    });
  }

  function layout() {
    Array.prototype.forEach.call(document.querySelectorAll(".table-wrap table"), function (table) {
      table.classList.remove("cards");
      if (!phone.matches || !table.tHead) return;
      if (table.scrollWidth > table.closest(".table-wrap").clientWidth + 1) {
        if (!table.hasAttribute("data-labelled")) {
          label(table);
          table.setAttribute("data-labelled", "");
        }
        table.classList.add("cards");
      }
    });
  }

  layout();
  if (phone.addEventListener) phone.addEventListener("change", layout);
})();
