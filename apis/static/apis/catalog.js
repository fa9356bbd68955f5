// Catalog pages: "/" focuses the search box; "Fill examples" copies each parameter's example into empty fields.
(function () {
  document.addEventListener("keydown", function (event) {
    var target = event.target;
    var typing = target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
    if (event.key === "/" && !typing && !event.ctrlKey && !event.metaKey && !event.altKey) {
      var search = document.querySelector("[data-search]");
      if (search) {
        event.preventDefault();
        search.focus();
        search.select();
      }
    }
  });
  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-fill-examples]");
    if (!button) return;
    var form = button.closest("form");
    form.querySelectorAll("input[data-param]").forEach(function (input) {
      if (!input.value && input.placeholder) input.value = input.placeholder;
    });
    form.querySelectorAll("select[data-param]").forEach(function (select) {
      var example = select.getAttribute("placeholder");
      if (!select.value && example) select.value = example;
    });
  });
})();
