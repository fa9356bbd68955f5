// The dashboard's charts: each [data-figure] element is drawn from the plotly.io JSON in the json_script it names,
// with the locally served plotly.js. The table under each chart holds the same numbers, so nothing needs this.
document.addEventListener("DOMContentLoaded", function () {
  if (!window.Plotly) return;
  document.querySelectorAll("[data-figure]").forEach(function (el) {
    var source = document.getElementById(el.dataset.figure);
    if (!source) return;
    var figure = JSON.parse(source.textContent);
    window.Plotly.newPlot(el, figure.data, figure.layout, { responsive: true, displaylogo: false }).then(function () {
      el.dataset.drawn = "true";
    });
  });
});
