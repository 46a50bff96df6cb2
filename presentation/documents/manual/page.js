// The step-by-step animations. Each figure.anim opens in its reading view: every value is
// shown and its steps are listed as text (as without JavaScript). Its "Step through" button
// starts the animation: cells appear as the steps reach them, with buttons (keyboard-operable)
// and the arrow keys, Home and End while focus is inside the figure; "Reading view" goes back.
(function () {
  "use strict";
  document.documentElement.classList.add("js");
  // Drawn, not typed: the media-control characters (U+23F8 and its kin) are missing from common fonts.
  var PLAY = '<svg class="icon" viewBox="0 0 10 10" aria-hidden="true"><path d="M2 1L9 5L2 9Z"/></svg>';
  var PAUSE = '<svg class="icon" viewBox="0 0 10 10" aria-hidden="true"><rect x="2" y="1" width="2.2" height="8"/>' +
              '<rect x="5.8" y="1" width="2.2" height="8"/></svg>';

  function setup(fig) {
    var data = JSON.parse(fig.querySelector("script.anim-data").textContent);
    var n = data.length, k = 0, timer = null;
    var count = fig.querySelector(".count"), title = fig.querySelector(".stitle");
    var text = fig.querySelector(".stext"), play = fig.querySelector('[data-act="play"]');
    var items = fig.querySelectorAll(".all li"), wrap = fig.querySelector(".lanes-wrap");
    var details = fig.querySelector("details.all"), next = fig.querySelector('[data-act="next"]');
    var start = fig.querySelector('[data-act="animate"]');

    function setPlaying(on) {
      if (!on && timer) { clearInterval(timer); timer = null; }
      play.innerHTML = on ? PAUSE + " Pause" : PLAY + " Play";
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
      fig.querySelectorAll(".controls button[data-act]").forEach(function (b) {
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

    function reading() {   // every value shown, the steps listed, no step highlighted
      setPlaying(false);
      fig.classList.remove("animating");
      fig.setAttribute("data-mode", "reading");
      fig.removeAttribute("data-step");
      fig.querySelectorAll(".pending, .gone, .now").forEach(function (el) {
        el.classList.remove("pending", "gone", "now");
      });
      if (details) { details.open = true; }
    }

    function animating() {
      fig.classList.add("animating");
      fig.setAttribute("data-mode", "animating");
      if (details) { details.open = false; }
      show(0);
      next.focus();
    }

    function act(name) {
      if (name === "animate") { animating(); return; }
      if (name === "read") { reading(); start.focus(); return; }
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
      if (keys[event.key] && fig.classList.contains("animating")) { event.preventDefault(); act(keys[event.key]); }
    });
    setPlaying(false);
    reading();
  }

  document.querySelectorAll("figure.anim").forEach(setup);
})();
