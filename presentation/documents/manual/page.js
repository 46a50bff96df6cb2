// The step-by-step animations: each figure.anim carries its steps as JSON. Without this
// script every value is shown and the list of steps is open; with it, cells appear as the
// steps reach them. Controls: buttons (keyboard-operable), and the arrow keys, Home and End
// while focus is inside the figure.
(function () {
  "use strict";
  document.documentElement.classList.add("js");

  function setup(fig) {
    var data = JSON.parse(fig.querySelector("script.anim-data").textContent);
    var n = data.length, k = 0, timer = null;
    var count = fig.querySelector(".count"), title = fig.querySelector(".stitle");
    var text = fig.querySelector(".stext"), play = fig.querySelector('[data-act="play"]');
    var items = fig.querySelectorAll(".all li"), wrap = fig.querySelector(".lanes-wrap");
    var details = fig.querySelector("details.all");
    if (details) { details.open = false; }

    function setPlaying(on) {
      if (!on && timer) { clearInterval(timer); timer = null; }
      play.textContent = on ? "⏸ Pause" : "▶ Play";
      play.setAttribute("aria-pressed", on ? "true" : "false");
      play.setAttribute("aria-label", on ? "Pause" : "Play");
    }

    function show(j) {
      k = Math.max(0, Math.min(n - 1, j));
      fig.querySelectorAll("[data-from]").forEach(function (el) {
        el.classList.toggle("pending", k < Number(el.getAttribute("data-from")));
      });
      fig.querySelectorAll("[data-until]").forEach(function (el) {
        el.classList.toggle("gone", k >= Number(el.getAttribute("data-until")));
      });
      fig.querySelectorAll("[data-at]").forEach(function (el) {
        el.classList.toggle("now", el.getAttribute("data-at").split(" ").indexOf(String(k)) >= 0);
      });
      items.forEach(function (li, i) { li.classList.toggle("now", i === k); });
      count.textContent = "Step " + (k + 1) + " of " + n;
      title.innerHTML = data[k].title;
      text.innerHTML = data[k].text;
      fig.setAttribute("data-step", String(k));
      fig.querySelectorAll("button[data-act]").forEach(function (b) {
        var act = b.getAttribute("data-act");
        var off = (k === 0 && (act === "first" || act === "prev")) ||
                  (k === n - 1 && (act === "next" || act === "last"));
        b.setAttribute("aria-disabled", off ? "true" : "false");
      });
      var cell = wrap && wrap.querySelector("td.now");
      if (cell) {   // keep the current lane in view without scrolling the page
        var left = cell.offsetLeft - wrap.clientWidth / 2 + cell.clientWidth / 2;
        wrap.scrollLeft = Math.max(0, left);
      }
      if (k === n - 1) { setPlaying(false); }
    }

    function act(name) {
      if (name === "play") {
        if (timer) { setPlaying(false); return; }
        if (k === n - 1) { show(0); }
        setPlaying(true);
        timer = setInterval(function () { show(k + 1); }, 1200);
        return;
      }
      setPlaying(false);
      show({first: 0, prev: k - 1, next: k + 1, last: n - 1}[name]);
    }

    fig.addEventListener("click", function (event) {
      var button = event.target.closest("button[data-act]");
      if (button) { act(button.getAttribute("data-act")); }
    });
    fig.addEventListener("keydown", function (event) {
      var keys = {ArrowRight: "next", ArrowLeft: "prev", Home: "first", End: "last"};
      if (keys[event.key]) { event.preventDefault(); act(keys[event.key]); }
    });
    show(0);
  }

  document.querySelectorAll("figure.anim").forEach(setup);
})();
