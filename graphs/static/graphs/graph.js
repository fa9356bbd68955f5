// Draws every element with data-figure from its json_script (plotly.io.to_json output) with the locally served
// plotly.js, and follows a clicked point's customdata when it is a site URL (a node or an edge of the graph).
(function () {
  function draw(el) {
    var source = document.getElementById(el.dataset.figure);
    if (!source || !window.Plotly) return;
    var spec = JSON.parse(source.textContent);
    window.Plotly.newPlot(el, spec.data, spec.layout, { responsive: true, displaylogo: false });
    el.on("plotly_click", function (event) {
      var point = event && event.points && event.points[0];
      var url = point && point.customdata;
      if (typeof url === "string" && url.charAt(0) === "/") window.location.href = url;
    });
    el.dataset.drawn = "true";
  }
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("[data-figure]").forEach(draw);
  });
})();
