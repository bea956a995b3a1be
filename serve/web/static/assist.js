/* Agent-assist panel: the customer's message in, intent ranking and suggested replies (/v1/suggest) out. */
(function () {
  "use strict";

  var $ = function (id) { return document.getElementById(id); };
  var form = $("suggest-form"), button = $("suggest-button"), status = $("status");
  var notice = $("notice"), noticeText = $("notice-text"), replyBox = $("reply");
  var suggestionList = $("suggestions"), intentBox = $("intent");
  var ready = false, busy = false, readyTimer = null, readyDelay = 2, retryTimer = null, countdown = null;
  var SOURCES = {
    llm: "generated: check before sending",
    template: "template: filled from customer facts",
    canned: "canned: approved text, send as written",
    clarify: "clarifying question",
    handoff: "handoff: pass to a specialist",
    knowledge: "knowledge base: our own answer, cited below",
    selected: "reply bank: approved reply for this situation",
    act: "acknowledgement or reference",
  };

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text != null) node.textContent = text;
    return node;
  }

  function showNotice(text, withRetry, isError) {
    noticeText.textContent = text;
    $("notice-retry").hidden = !withRetry;
    notice.classList.toggle("error", !!isError);
    notice.hidden = false;
  }

  function setReady(value) {
    ready = value;
    button.disabled = !ready || busy;
  }

  function checkReady() {
    clearTimeout(readyTimer);
    clearInterval(countdown);
    fetch("/ready", { cache: "no-store" })
      .then(function (response) {
        return response.json().catch(function () { return {}; }).then(function (body) {
          if (response.ok) {
            readyDelay = 2;
            notice.hidden = true;
            setReady(true);
          } else {
            notReady("The server is not ready yet" + (body.error ? " (" + body.error + ")" : "") + ".");
          }
        });
      })
      .catch(function () { notReady("Cannot reach the server."); });
  }

  function notReady(text) {
    var delay = readyDelay, until = Date.now() + delay * 1000;
    readyDelay = Math.min(readyDelay * 2, 30);
    setReady(false);
    function render() {
      showNotice(text + " Retrying in " + Math.max(1, Math.ceil((until - Date.now()) / 1000)) + " s.", true, false);
    }
    render();
    clearInterval(countdown);
    countdown = setInterval(render, 1000);
    readyTimer = setTimeout(checkReady, delay * 1000);
  }

  var PREFIXES = [[/^\s*(customer|user|客户|顾客)\s*[:：]\s*/i, "user"], [/^\s*(agent|assistant|客服)\s*[:：]\s*/i, "assistant"]];

  function parseHistory(text) {
    var turns = [];
    text.split("\n").forEach(function (line) {
      for (var i = 0; i < PREFIXES.length; i++) {
        var match = line.match(PREFIXES[i][0]);
        if (match) { turns.push({ role: PREFIXES[i][1], content: line.slice(match[0].length) }); return; }
      }
      if (!line.trim()) return;
      if (turns.length) turns[turns.length - 1].content += "\n" + line;
      else turns.push({ role: "user", content: line });
    });
    return turns.filter(function (turn) { return turn.content.trim(); });
  }

  function setBusy(value, text) {
    busy = value;
    button.disabled = busy || !ready;
    status.textContent = text || "";
  }

  function request() {
    clearTimeout(retryTimer);
    var message = $("message").value;
    if (!message.trim() || busy || !ready) return;
    var body = { domain: $("domain").value, lang: $("lang").value, message: message,
                 history: parseHistory($("history").value), n: Math.max(1, Math.min(4, parseInt($("n").value, 10) || 3)) };
    var maxTokens = parseInt($("max-tokens").value, 10);
    if (maxTokens > 0) body.max_tokens = maxTokens;
    setBusy(true, "Asking for suggestions…");
    var started = performance.now();
    fetch("/v1/suggest", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
      .then(function (response) {
        return response.json().catch(function () { return {}; }).then(function (data) {
          if (response.ok) {
            setBusy(false, "Suggestions ready in " + Math.round(performance.now() - started) + " ms.");
            render(data);
            return;
          }
          var message = (data.error && data.error.message) || response.statusText;
          if (response.status === 429) {
            var seconds = parseInt(response.headers.get("Retry-After") || "", 10);
            if (!(seconds > 0)) seconds = 2;
            setBusy(false, "");
            showNotice("The server is busy (" + message + "). Asking again in " + seconds + " s.", false, false);
            retryTimer = setTimeout(function () { notice.hidden = true; request(); }, seconds * 1000);
            return;
          }
          setBusy(false, "");
          if (response.status === 503) { notReady("The server is not ready (" + message + ")."); return; }
          showNotice("The request failed: " + message, false, true);
        });
      })
      .catch(function () {
        setBusy(false, "");
        notReady("Cannot reach the server.");
      });
  }

  function render(data) {
    var intent = data.intent;
    intentBox.replaceChildren();
    var top = el("p");
    var route = el("span", "route", intent.route);
    route.dataset.route = intent.route;
    top.append(el("strong", "intent-label", intent.label), document.createTextNode(" · "
      + Math.round(intent.confidence * 100) + "% · route "), route,
      document.createTextNode(" · " + intent.lang + (intent.uncertain ? " · uncertain (" + intent.uncertain_reason + ")" : "")));
    intentBox.appendChild(top);
    if (intent.route === "handoff") {
      var reason = el("p", "handoff-reason", "Handoff: " + intent.reason.replace(/_/g, " "));
      reason.dataset.reason = intent.reason;
      intentBox.appendChild(reason);
    } else {
      intentBox.appendChild(el("p", "muted", "Reason: " + intent.reason.replace(/_/g, " ")));
    }
    var ranking = el("ol", "ranking");
    ranking.setAttribute("aria-label", "Intent ranking");
    (intent.ranking || []).forEach(function (entry) {
      var row = el("li");
      var meter = el("meter");
      meter.min = 0; meter.max = 1; meter.value = entry.confidence;
      meter.setAttribute("aria-label", entry.label);
      row.append(el("span", null, entry.label), meter, el("span", null, Math.round(entry.confidence * 100) + "%"));
      ranking.appendChild(row);
    });
    intentBox.appendChild(ranking);

    suggestionList.replaceChildren();
    data.suggestions.slice(0, 4).forEach(function (suggestion, index) {
      var item = el("li", "suggestion");
      item.dataset.source = suggestion.source;
      var text = el("p", "suggestion-text", suggestion.text);
      var source = el("span", "source", SOURCES[suggestion.source] || suggestion.source);
      source.dataset.source = suggestion.source;
      var insert = el("button", "secondary insert", "Insert (Alt+" + (index + 1) + ")");
      insert.type = "button";
      insert.setAttribute("aria-keyshortcuts", "Alt+" + (index + 1));
      insert.setAttribute("aria-label", "Insert suggestion " + (index + 1) + " into your reply");
      insert.addEventListener("click", function () { insertSuggestion(index); });
      item.append(text, source, insert);
      suggestionList.appendChild(item);
    });
    if (!data.suggestions.length) suggestionList.appendChild(el("li", "muted", "No suggestion for this message."));
    // The knowledge-base entries behind the suggestions, so the agent can check the facts before sending.
    var cited = data.citations || [];
    if (cited.length) {
      var sources = el("li", "citations");
      sources.appendChild(el("span", "muted", "From the knowledge base: "));
      cited.forEach(function (entry, i) {
        var item = el("span", "citation", (i ? ", " : "") + entry.title + " (" + entry.id + ")");
        item.dataset.entry = entry.id;
        sources.appendChild(item);
      });
      suggestionList.appendChild(sources);
    }
  }

  function insertSuggestion(index) {
    var item = suggestionList.querySelectorAll("li.suggestion")[index];
    if (!item) return;
    var text = item.querySelector(".suggestion-text").textContent;
    // At the cursor (replacing a selection), so an agent can combine a suggestion with their own words.
    var start = replyBox.selectionStart, end = replyBox.selectionEnd;
    replyBox.setRangeText(text, start, end, "end");
    replyBox.focus();
    status.textContent = "Suggestion " + (index + 1) + " inserted into your reply.";
  }

  form.addEventListener("submit", function (event) { event.preventDefault(); request(); });
  $("message").addEventListener("keydown", function (event) {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && !event.isComposing && event.keyCode !== 229) {
      event.preventDefault();
      request();
    }
  });
  document.addEventListener("keydown", function (event) {
    if (!event.altKey || event.ctrlKey || event.metaKey) return;
    var digit = /^Digit([1-4])$/.exec(event.code);
    if (!digit) return;
    event.preventDefault();
    insertSuggestion(parseInt(digit[1], 10) - 1);
  });
  $("notice-retry").addEventListener("click", checkReady);
  window.addEventListener("offline", function () { showNotice("You are offline.", false, true); });
  window.addEventListener("online", checkReady);
  checkReady();
})();
