// Keyboard-first review: any element with data-key="x" is pressed by the key x (unless one is typing or a dialog
// is open); data-dialog opens a <dialog>, data-open opens a <details> and focuses its first field. In the reject
// dialog the number keys pick a reason and Enter sends it; data-focus moves the focus to a field. Ctrl+Enter
// submits the form being typed in.
(function () {
  "use strict";

  function typing(el) {
    if (!el || !el.tagName) return false;
    var tag = el.tagName;
    if (tag === "TEXTAREA" || tag === "SELECT" || el.isContentEditable) return true;
    return tag === "INPUT" && !/^(radio|checkbox|button|submit)$/.test(el.type);
  }

  function openDialog(id) {
    var dialog = document.getElementById(id);
    if (!dialog || dialog.open) return;
    dialog.showModal();
    var first = dialog.querySelector("[autofocus], input, textarea, button");
    if (first) first.focus();
  }

  function openPanel(id) {
    var panel = document.getElementById(id);
    if (!panel) return;
    panel.open = true;
    var field = panel.querySelector("textarea, input:not([type=hidden])");
    if (field) {
      field.focus();
      panel.scrollIntoView({ block: "start" });
    }
  }

  function rejectKeys(event, dialog) {
    var form = dialog.querySelector("form");
    if (/^[1-9]$/.test(event.key) && !typing(event.target)) {
      var radios = dialog.querySelectorAll("input[type=radio][name=reason]");
      var radio = radios[Number(event.key) - 1];
      if (radio) {
        event.preventDefault();
        radio.checked = true;
        radio.focus();
        if (radio.value === "other") dialog.querySelector("textarea[name=note]").focus();
      }
      return;
    }
    if (event.key === "Enter" && event.target.tagName !== "TEXTAREA" && event.target.tagName !== "BUTTON") {
      event.preventDefault();
      if (form.reportValidity()) form.requestSubmit();
    }
  }

  document.addEventListener("keydown", function (event) {
    if ((event.ctrlKey || event.metaKey) && event.key === "Enter") {
      var form = event.target.closest && event.target.closest("form");
      if (form) {
        event.preventDefault();
        form.requestSubmit();
      }
      return;
    }
    var dialog = document.querySelector("dialog[open]");
    if (dialog) {
      if (dialog.id === "reject-dialog") rejectKeys(event, dialog);
      return;
    }
    if (event.altKey || event.ctrlKey || event.metaKey || typing(event.target)) return;
    var key = event.key;
    var target = Array.prototype.find.call(document.querySelectorAll("[data-key]"), function (el) {
      return el.dataset.key === key;
    });
    if (!target || target.disabled) return;
    event.preventDefault();
    target.click();
  });

  document.addEventListener("click", function (event) {
    var opener = event.target.closest("[data-dialog]");
    if (opener) {
      event.preventDefault();
      openDialog(opener.dataset.dialog);
      return;
    }
    var panel = event.target.closest("[data-open]");
    if (panel) {
      event.preventDefault();
      openPanel(panel.dataset.open);
      return;
    }
    var focus = event.target.closest("[data-focus]");
    if (focus) {
      var field = document.getElementById(focus.dataset.focus);
      if (field) {
        field.scrollIntoView({ block: "center" });
        field.focus();
      }
      return;
    }
    var closer = event.target.closest("[data-close]");
    if (closer) closer.closest("dialog").close();
  });
})();
