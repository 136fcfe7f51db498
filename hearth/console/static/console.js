/*
 * Hearth console: what the server-sent events change besides the rows htmx inserts.
 *
 * The stack page's stream inserts each new event as a table row (htmx and its
 * sse extension); this file reads the row's data attributes (text the server
 * escaped) and recolours the resource's node in the topology and its row in the
 * resources table.  Loaded as a file (the Content-Security-Policy allows no inline
 * script); it sets classes and text only, never HTML.
 */
(function () {
  "use strict";

  var STATUS_CLASSES = [["IN_PROGRESS", "progress"], ["COMPLETE", "complete"], ["FAILED", "failed"]];

  function statusClass(state) {
    if (!state || state.indexOf("INIT_") === 0) {
      return "init"; // never acted on (Heat's INIT_COMPLETE)
    }
    for (var i = 0; i < STATUS_CLASSES.length; i++) {
      var suffix = STATUS_CLASSES[i][0];
      if (state && state.slice(-suffix.length) === suffix) {
        return STATUS_CLASSES[i][1];
      }
    }
    return "init";
  }

  function recolour(element, state) {
    var classes = (element.getAttribute("class") || "").split(/\s+/).filter(function (name) {
      return name && name.indexOf("s-") !== 0;
    });
    classes.push("s-" + statusClass(state));
    element.setAttribute("class", classes.join(" "));
    element.setAttribute("data-state", state);
  }

  function byName(selector, attribute) {
    var found = new Map();
    document.querySelectorAll(selector).forEach(function (element) {
      found.set(element.getAttribute(attribute), element);
    });
    return found;
  }

  var nodes = null;
  var rows = null;

  function applyEvent(row) {
    var live = document.getElementById("live");
    if (!live || row.getAttribute("data-physical") === live.getAttribute("data-stack-id")) {
      return; // the stack's own event: its status comes in the "stack" message
    }
    var name = row.getAttribute("data-resource");
    var state = row.getAttribute("data-state") || "";
    var reason = row.getAttribute("data-reason") || "";
    if (nodes === null) {
      nodes = byName("#topology [data-node]", "data-node");
    }
    if (rows === null) {
      rows = byName("#resources tr[data-resource]", "data-resource");
    }
    var node = nodes.get(name);
    if (node) {
      recolour(node, state);
      var title = node.querySelector("title");
      if (title) {
        title.textContent = name + ": " + state + (reason ? ": " + reason : "");
      }
    }
    var resource = rows.get(name);
    if (resource) {
      var status = resource.querySelector("[data-role=status]");
      if (status) {
        status.setAttribute("class", "state s-" + statusClass(state));
        status.textContent = state;
      }
      var cell = resource.querySelector("[data-role=reason]");
      if (cell) {
        cell.textContent = reason;
      }
    }
  }

  // the resources table arrives after the page: find its rows again then
  document.addEventListener("htmx:afterSettle", function (settled) {
    if (settled.target && settled.target.id === "resources-body") {
      rows = null;
    }
  });

  // A row the page has already (an event, an agent's return) is not added twice: a
  // stream that reconnects may send again what came before the connection broke.
  var ROW_KEYS = ["data-event", "data-agent"];

  function hasRow(container, key, value) {
    for (var i = 0; i < container.children.length; i++) {
      if (container.children[i].getAttribute(key) === value) {
        return true;
      }
    }
    return false;
  }

  document.addEventListener("htmx:sseBeforeMessage", function (message) {
    var target = message.target;
    var data = message.detail && message.detail.data;
    if (!target || typeof data !== "string") {
      return;
    }
    // parsed inert (a template's content runs nothing and loads nothing)
    var parsed = document.createElement("template");
    parsed.innerHTML = data;
    var row = parsed.content.firstElementChild;
    if (!row) {
      return;
    }
    for (var i = 0; i < ROW_KEYS.length; i++) {
      var value = row.getAttribute(ROW_KEYS[i]);
      if (value !== null && hasRow(target, ROW_KEYS[i], value)) {
        message.preventDefault();
        return;
      }
    }
  });

  document.addEventListener("htmx:sseMessage", function (message) {
    var target = message.target;
    if (target && target.id === "events" && target.firstElementChild) {
      applyEvent(target.firstElementChild);
    }
  });
})();
