// Draws every element with data-figure from its json_script (plotly.io.to_json output) with the locally served
// plotly.js; a clicked point whose customdata is a site URL opens it (a leaderboard point opens its run).
(function () {
  function draw(el) {
    var source = document.getElementById(el.dataset.figure);
    if (!source || !window.Plotly) return;
    var spec = JSON.parse(source.textContent);
    var config = { responsive: true, displaylogo: false, modeBarButtonsToRemove: ["select2d", "lasso2d"] };
    window.Plotly.newPlot(el, spec.data, spec.layout, config).then(function () {
      el.dataset.drawn = "true";
    });
    el.on("plotly_click", function (event) {
      var point = event && event.points && event.points[0];
      var url = point && point.customdata;
      if (typeof url === "string" && url.charAt(0) === "/") window.location.href = url;
    });
  }
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("[data-figure]").forEach(draw);
  });
})();
