/*
 * csreply chat widget: one script tag, no dependencies, no build step.
 *
 *   <script src="https://replies.example.com/static/widget.js" data-domain="telecom" data-lang="auto" defer></script>
 *
 * Attributes (all optional): data-server (default: where this script came from), data-domain
 * (telecom | ecommerce), data-lang (auto | en | zh), data-mount (CSS selector of an element to render
 * into; default: a floating launcher), data-title, data-open ("true": floating panel starts open),
 * data-max-tokens, data-context (JSON object of customer facts, e.g. '{"name": "Li"}').
 * docs/web.md describes the states it shows and the CORS setting a cross-origin embed needs.
 */
(function () {
  "use strict";

  var script = document.currentScript;
  if (!script) return;
  var data = script.dataset;

  var STRINGS = {
    en: {
      title: "Customer service", label: "Your message", send: "Send", open: "Chat with us", close: "Close chat",
      hint: "Enter sends, Shift+Enter starts a new line.", you: "You", agent: "Assistant",
      checking: "Connecting…", ready: "Online", down: "Not ready",
      notReady: "The assistant is not ready yet", unreachable: "Cannot reach the assistant",
      retryIn: "Retrying in {s} s.", retryNow: "Retry now", retry: "Retry",
      busy: "The assistant is busy. Sending again in {s} s…",
      streamError: "The reply stopped early: {msg}. The part received is kept above.",
      lost: "The connection was lost during the reply. The part received is kept above.",
      failed: "Not sent: {msg}", offline: "You are offline. Messages will work again when the connection is back.",
      handoff: "Connecting you with a human agent", latency: "first token {ttft} · total {total}",
      cut: "(reply shortened)", cached: "cached", uncertain: "unsure",
    },
    zh: {
      title: "在线客服", label: "您的消息", send: "发送", open: "在线咨询", close: "关闭对话",
      hint: "回车发送，Shift+回车换行。", you: "您", agent: "客服助手",
      checking: "正在连接…", ready: "在线", down: "未就绪",
      notReady: "客服助手尚未就绪", unreachable: "无法连接客服助手",
      retryIn: "{s} 秒后重试。", retryNow: "立即重试", retry: "重试",
      busy: "客服助手繁忙，{s} 秒后自动重发…",
      streamError: "回复中途出错：{msg}。已收到的部分保留在上方。",
      lost: "回复过程中连接中断，已收到的部分保留在上方。",
      failed: "未发送：{msg}", offline: "您已离线，恢复网络后即可继续。",
      handoff: "正在为您转接人工客服", latency: "首字 {ttft} · 总计 {total}",
      cut: "（回复已截断）", cached: "缓存", uncertain: "不确定",
    },
  };

  function fmt(template, values) {
    return template.replace(/\{(\w+)\}/g, function (_, key) { return String(values[key]); });
  }

  function ms(value) {
    return value >= 1000 ? (value / 1000).toFixed(1) + " s" : Math.round(value) + " ms";
  }

  function randomId() {
    // crypto.randomUUID needs a secure context; getRandomValues works on plain http embeds too.
    var bytes = new Uint8Array(12);
    crypto.getRandomValues(bytes);
    return "w-" + Array.prototype.map.call(bytes, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  }

  var CSS = [
    ":host{all:initial;font:15px/1.45 system-ui,-apple-system,'Segoe UI','Noto Sans CJK SC','PingFang SC',sans-serif;color:#1c2733}",
    ".cw{display:flex;flex-direction:column;height:100%;min-height:360px;background:#fff;border:1px solid #c9d3dd;border-radius:12px;overflow:hidden;box-sizing:border-box}",
    ".cw *{box-sizing:border-box}",
    "header{display:flex;align-items:center;justify-content:space-between;gap:8px;padding:10px 14px;background:#12466e;color:#fff}",
    "h2{font-size:16px;margin:0}",
    ".status{font-size:13px;display:flex;align-items:center;gap:6px}",
    ".status::before{content:'';width:9px;height:9px;border-radius:50%;background:#b8c2cc}",
    ".status[data-state=ready]::before{background:#3ccf7a}.status[data-state=down]::before{background:#ff8a65}",
    ".notice{margin:0;padding:10px 14px;background:#fff4e5;border-bottom:1px solid #f0c36d;color:#5c3b00;font-size:14px;display:flex;gap:10px;align-items:center;justify-content:space-between}",
    ".notice[hidden]{display:none}",
    "ol{list-style:none;margin:0;padding:12px;flex:1;overflow-y:auto;display:flex;flex-direction:column;gap:10px}",
    "li{max-width:88%;padding:8px 12px;border-radius:12px;white-space:pre-wrap;word-wrap:break-word}",
    "li.user{align-self:flex-end;background:#12466e;color:#fff;border-bottom-right-radius:4px}",
    "li.bot{align-self:flex-start;background:#eef2f6;border-bottom-left-radius:4px}",
    "li.bot[data-state=streaming] .cw-text::after{content:'▍';animation:blink 1s steps(2) infinite;color:#12466e}",
    "@keyframes blink{50%{opacity:0}}",
    ".who{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}",
    ".cw-meta{display:flex;flex-wrap:wrap;gap:6px;margin-bottom:4px;white-space:normal}",
    ".cw-badge{font-size:12px;padding:1px 8px;border-radius:999px;background:#dbe8f5;color:#12466e;font-weight:600}",
    ".cw-badge[data-uncertain=true]{background:#fde7c8;color:#7a4b00}",
    ".cw-route{font-size:12px;color:#4c5b6b}",
    ".cw-handoff{white-space:normal;margin:4px 0;padding:6px 10px;border-left:4px solid #d9822b;background:#fff4e5;color:#5c3b00;font-weight:600;font-size:14px}",
    ".cw-latency{display:block;margin-top:4px;font-size:12px;color:#4c5b6b;white-space:normal}",
    ".cw-error{white-space:normal;margin-top:6px;font-size:13px;color:#8a1c1c;display:flex;flex-wrap:wrap;gap:8px;align-items:center}",
    ".cw-error.cw-busy{color:#5c3b00}",
    "li.bot[data-state=error],li.bot[data-state=incomplete]{border:1px dashed #c0392b}",
    "form{display:grid;grid-template-columns:1fr auto;gap:8px;padding:10px 12px;border-top:1px solid #c9d3dd;background:#f8fafc}",
    "label{grid-column:1/-1;font-size:13px;font-weight:600;color:#2b3a4a}",
    "textarea{width:100%;resize:vertical;min-height:42px;padding:8px;font:inherit;border:1px solid #8a9bb0;border-radius:8px}",
    "textarea:focus,button:focus-visible{outline:3px solid #f0b429;outline-offset:1px}",
    "button{font:inherit;padding:8px 16px;border-radius:8px;border:0;background:#12466e;color:#fff;cursor:pointer}",
    "button:disabled{background:#8a9bb0;cursor:not-allowed}",
    ".notice button,.cw-error button{padding:4px 10px;font-size:13px;background:#fff;color:#12466e;border:1px solid #12466e}",
    ".hint{grid-column:1/-1;margin:0;font-size:12px;color:#4c5b6b}",
    ".launcher{position:fixed;right:20px;bottom:20px;z-index:2147483000;border-radius:999px;padding:12px 20px;box-shadow:0 4px 14px rgba(0,0,0,.25)}",
    ".floating{position:fixed;right:20px;bottom:80px;width:min(380px,calc(100vw - 40px));height:min(560px,calc(100vh - 110px));z-index:2147483000;box-shadow:0 8px 30px rgba(0,0,0,.25)}",
    ".floating[hidden]{display:none}",
  ].join("\n");

  function Widget(host, config) {
    this.config = config;
    this.t = STRINGS[config.lang === "zh" ? "zh" : "en"];
    this.sessionKey = "csreply.session." + config.server + "." + config.domain;
    this.busy = false;
    this.ready = false;
    this.readyTimer = null;
    this.readyDelay = 2;
    this.build(host);
    this.checkReady();
    var self = this;
    window.addEventListener("offline", function () { self.showNotice(self.t.offline, false); self.setStatus("down", self.t.down); });
    window.addEventListener("online", function () { self.checkReady(); });
  }

  Widget.prototype.sessionId = function () {
    // Per tab: sessionStorage survives reloads of this tab but is not shared with other tabs.
    var id = null;
    try { id = sessionStorage.getItem(this.sessionKey); } catch (e) { /* storage blocked: session per page */ }
    if (!id) {
      id = this.fallbackSession || randomId();
      this.fallbackSession = id;
      try { sessionStorage.setItem(this.sessionKey, id); } catch (e) { /* see above */ }
    }
    return id;
  };

  Widget.prototype.el = function (tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text != null) node.textContent = text;
    return node;
  };

  Widget.prototype.build = function (host) {
    var t = this.t, self = this;
    var root = host.attachShadow({ mode: "open" });
    var style = this.el("style");
    style.textContent = CSS;
    root.appendChild(style);

    var panel = this.el("section", "cw");
    panel.setAttribute("aria-label", this.config.title || t.title);
    panel.setAttribute("lang", this.config.lang === "zh" ? "zh" : "en");
    var header = this.el("header");
    var heading = this.el("h2", null, this.config.title || t.title);
    this.status = this.el("span", "status", t.checking);
    this.status.setAttribute("role", "status");
    header.append(heading, this.status);

    this.notice = this.el("div", "notice");
    this.notice.setAttribute("role", "alert");
    this.notice.hidden = true;
    this.noticeText = this.el("span", "cw-notice-text");
    this.noticeButton = this.el("button", "cw-retry-ready", t.retryNow);
    this.noticeButton.type = "button";
    this.noticeButton.addEventListener("click", function () { self.checkReady(); });
    this.notice.append(this.noticeText, this.noticeButton);

    this.log = this.el("ol", "cw-log");
    this.log.setAttribute("role", "log");
    this.log.setAttribute("aria-live", "polite");
    this.log.setAttribute("aria-label", this.config.title || t.title);

    var form = this.el("form");
    var inputId = "cw-input";
    var label = this.el("label", null, t.label);
    label.htmlFor = inputId;
    this.input = this.el("textarea");
    this.input.id = inputId;
    this.input.rows = 2;
    this.input.setAttribute("aria-describedby", "cw-hint");
    this.sendButton = this.el("button", "cw-send", t.send);
    this.sendButton.type = "submit";
    this.sendButton.disabled = true;
    var hint = this.el("p", "hint", t.hint);
    hint.id = "cw-hint";
    form.append(label, this.input, this.sendButton, hint);
    panel.append(header, this.notice, this.log, form);

    // IME: Enter that confirms a candidate (Chinese, Japanese...) must not send. Chrome sets
    // isComposing; Safari sends keyCode 229 after compositionend; the flag covers engines without either.
    this.composing = false;
    this.input.addEventListener("compositionstart", function () { self.composing = true; });
    this.input.addEventListener("compositionend", function () { self.composing = false; });
    this.input.addEventListener("keydown", function (event) {
      if (event.key !== "Enter" || event.shiftKey) return;
      if (event.isComposing || event.keyCode === 229 || self.composing) return;
      event.preventDefault();
      self.submit();
    });
    form.addEventListener("submit", function (event) { event.preventDefault(); self.submit(); });

    if (this.config.mount) {
      root.appendChild(panel);
    } else {
      panel.classList.add("floating");
      panel.id = "cw-panel";
      panel.hidden = !this.config.open;
      var launcher = this.el("button", "launcher", t.open);
      launcher.type = "button";
      launcher.setAttribute("aria-controls", "cw-panel");
      launcher.setAttribute("aria-expanded", String(!panel.hidden));
      launcher.addEventListener("click", function () {
        panel.hidden = !panel.hidden;
        launcher.setAttribute("aria-expanded", String(!panel.hidden));
        launcher.textContent = panel.hidden ? t.open : t.close;
        if (!panel.hidden) self.input.focus();
      });
      root.append(panel, launcher);
    }
  };

  Widget.prototype.setStatus = function (state, text) {
    this.status.dataset.state = state;
    this.status.textContent = text;
  };

  Widget.prototype.showNotice = function (text, withRetry) {
    this.noticeText.textContent = text;
    this.noticeButton.hidden = !withRetry;
    this.notice.hidden = false;
  };

  Widget.prototype.setReady = function (ready) {
    this.ready = ready;
    this.sendButton.disabled = !ready || this.busy;
  };

  Widget.prototype.checkReady = function () {
    var self = this, t = this.t;
    clearTimeout(this.readyTimer);
    clearInterval(this.countdown);
    this.setStatus("checking", t.checking);
    fetch(this.config.server + "/ready", { cache: "no-store" })
      .then(function (response) {
        return response.json().catch(function () { return {}; }).then(function (body) {
          if (response.ok) {
            self.readyDelay = 2;
            self.notice.hidden = true;
            self.setStatus("ready", t.ready);
            self.setReady(true);
          } else {
            self.notReady(t.notReady + (body.error ? " (" + body.error + ")" : "") + ".");
          }
        });
      })
      .catch(function () { self.notReady(t.unreachable + "."); });
  };

  Widget.prototype.notReady = function (text) {
    var self = this;
    var delay = this.readyDelay;
    this.readyDelay = Math.min(this.readyDelay * 2, 30);
    var until = Date.now() + delay * 1000;
    this.setReady(false);
    this.setStatus("down", this.t.down);
    function render() {
      self.showNotice(text + " " + fmt(self.t.retryIn, { s: Math.max(1, Math.ceil((until - Date.now()) / 1000)) }), true);
    }
    render();
    clearInterval(this.countdown);
    this.countdown = setInterval(render, 1000);
    this.readyTimer = setTimeout(function () { self.checkReady(); }, delay * 1000);
  };

  Widget.prototype.submit = function () {
    var text = this.input.value;
    if (!text.trim() || this.busy || !this.ready) return;
    this.input.value = "";
    this.addUser(text);
    this.send(text);
  };

  Widget.prototype.addUser = function (text) {
    var item = this.el("li", "user");
    item.append(this.el("span", "who", this.t.you + ": "), this.el("span", "cw-user-text", text));
    this.log.appendChild(item);
    this.scroll();
  };

  Widget.prototype.scroll = function () {
    this.log.scrollTop = this.log.scrollHeight;
  };

  Widget.prototype.newReply = function () {
    var item = this.el("li", "bot");
    item.dataset.state = "waiting";
    item.appendChild(this.el("span", "who", this.t.agent + ": "));
    item.meta = this.el("div", "cw-meta");
    item.text = this.el("span", "cw-text");
    item.append(item.meta, item.text);
    this.log.appendChild(item);
    this.log.setAttribute("aria-busy", "true");
    this.scroll();
    return item;
  };

  Widget.prototype.setBusy = function (busy) {
    this.busy = busy;
    this.sendButton.disabled = busy || !this.ready;
    if (!busy) this.log.setAttribute("aria-busy", "false");
  };

  Widget.prototype.send = function (text, item) {
    var self = this, config = this.config;
    item = item || this.newReply();
    item.userText = text;  // what a Retry button on this reply sends again
    this.setBusy(true);
    var body = { domain: config.domain, message: text, lang: config.lang, session_id: this.sessionId(), stream: true };
    if (config.maxTokens) body.max_tokens = config.maxTokens;
    if (config.context) body.context = config.context;
    var started = performance.now();
    fetch(config.server + "/v1/reply", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify(body),
    })
      .then(function (response) {
        if (response.ok) return self.readStream(response, item, started);
        return response.json().catch(function () { return {}; }).then(function (error) {
          self.httpError(response, (error.error && error.error.message) || response.statusText, text, item);
        });
      })
      .catch(function (error) {
        // fetch rejects only when no response arrived: offline, DNS, refused, or CORS not allowed.
        self.fail(item, fmt(self.t.failed, { msg: self.t.unreachable }), text);
        self.notReady(self.t.unreachable + ".");
        if (window.console) console.warn("csreply widget:", error);
      });
  };

  Widget.prototype.httpError = function (response, message, text, item) {
    var self = this;
    if (response.status === 429) {
      var seconds = parseInt(response.headers.get("Retry-After") || "", 10);
      if (!(seconds > 0)) seconds = 2;
      item.dataset.state = "waiting";
      var notice = this.errorLine(item, fmt(this.t.busy, { s: seconds }));
      notice.classList.add("cw-busy");
      var remaining = seconds;
      var tick = setInterval(function () {
        remaining -= 1;
        if (remaining > 0) {
          notice.firstChild.textContent = fmt(self.t.busy, { s: remaining });
          return;
        }
        clearInterval(tick);
        notice.remove();
        self.send(text, item);
      }, 1000);
      return;
    }
    if (response.status === 503) this.notReady(this.t.notReady + " (" + message + ").");
    this.fail(item, fmt(this.t.failed, { msg: message }), text);
  };

  Widget.prototype.errorLine = function (item, message, retryText) {
    var self = this;
    var line = this.el("div", "cw-error");
    line.setAttribute("role", "alert");
    line.appendChild(this.el("span", null, message));
    if (retryText != null) {
      var button = this.el("button", "cw-retry", this.t.retry);
      button.type = "button";
      button.addEventListener("click", function () {
        if (self.busy || !self.ready) return;
        line.remove();
        self.send(retryText);
      });
      line.appendChild(button);
    }
    item.appendChild(line);
    this.scroll();
    return line;
  };

  Widget.prototype.fail = function (item, message, retryText) {
    item.dataset.state = item.text.textContent ? "incomplete" : "error";
    this.errorLine(item, message, retryText);
    this.setBusy(false);
  };

  Widget.prototype.readStream = async function (response, item, started) {
    var self = this, t = this.t;
    item.dataset.state = "streaming";
    // TextDecoderStream keeps a multi-byte character split across network chunks whole (no U+FFFD).
    var reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    var buffer = "", firstToken = null, finished = false;
    function handle(name, payload) {
      if (name === "intent") {
        self.showIntent(item, payload);
      } else if (name === "delta") {
        if (firstToken === null) firstToken = performance.now() - started;
        item.text.textContent += payload.text;
        self.scroll();
      } else if (name === "done") {
        finished = true;
        item.dataset.state = "done";
        if (payload.handoff && payload.handoff.needed) self.showHandoff(item, payload.handoff.reason);
        var total = performance.now() - started;
        var line = self.el("small", "cw-latency", fmt(t.latency, { ttft: ms(firstToken === null ? total : firstToken), total: ms(total) })
          + (payload.finish_reason === "length" ? " " + t.cut : "") + (payload.cached ? " · " + t.cached : ""));
        var timings = payload.timings || {};
        line.title = "server: router " + ms(timings.router_ms || 0) + ", first token " + ms(timings.ttft_ms || 0)
          + ", total " + ms(timings.total_ms || 0);
        line.dataset.ttftMs = String(Math.round(firstToken === null ? total : firstToken));
        line.dataset.totalMs = String(Math.round(total));
        item.appendChild(line);
      } else if (name === "error") {
        finished = true;
        var message = (payload.error && payload.error.message) || "error";
        self.fail(item, fmt(t.streamError, { msg: message }), item.userText);
      }
    }
    try {
      for (;;) {
        var chunk = await reader.read();
        if (chunk.done) break;
        buffer += chunk.value.replace(/\r\n?/g, "\n");
        var cut;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          var block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          var name = "message", dataLines = [];
          block.split("\n").forEach(function (line) {
            if (line.startsWith("event:")) name = line.slice(6).trim();
            else if (line.startsWith("data:")) dataLines.push(line.slice(5).replace(/^ /, ""));
          });
          if (dataLines.length) handle(name, JSON.parse(dataLines.join("\n")));
        }
      }
    } catch (error) {
      if (window.console) console.warn("csreply widget: stream broke", error);
    }
    if (!finished) {
      this.fail(item, t.lost, item.userText);
      return;
    }
    if (item.dataset.state === "done") this.setBusy(false);
  };

  Widget.prototype.showIntent = function (item, intent) {
    var badge = this.el("span", "cw-badge", intent.label.replace(/_/g, " ") + " · " + Math.round(intent.confidence * 100) + "%");
    badge.dataset.label = intent.label;
    badge.dataset.confidence = String(intent.confidence);
    badge.dataset.uncertain = String(!!intent.uncertain);
    badge.title = "intent " + intent.label + ", confidence " + intent.confidence.toFixed(3)
      + (intent.uncertain ? " (" + this.t.uncertain + ")" : "");
    var route = this.el("span", "cw-route", intent.route);
    route.title = "route: " + intent.reason;
    route.dataset.route = intent.route;
    item.meta.replaceChildren(badge, route);
    if (intent.route === "handoff") this.showHandoff(item, intent.reason);
  };

  Widget.prototype.showHandoff = function (item, reason) {
    if (item.querySelector(".cw-handoff")) return;
    var banner = this.el("div", "cw-handoff", this.t.handoff + (reason ? " (" + reason.replace(/_/g, " ") + ")" : ""));
    banner.setAttribute("role", "status");
    banner.dataset.reason = reason || "";
    item.insertBefore(banner, item.text);
  };

  var server = (data.server || new URL(script.src, location.href).origin).replace(/\/+$/, "");
  var context = null;
  if (data.context) {
    try { context = JSON.parse(data.context); } catch (e) { if (window.console) console.warn("csreply widget: data-context is not JSON"); }
  }
  var config = {
    server: server,
    domain: data.domain || "telecom",
    lang: data.lang || "auto",
    title: data.title || "",
    mount: data.mount || "",
    open: data.open === "true",
    maxTokens: data.maxTokens ? parseInt(data.maxTokens, 10) : null,
    context: context,
  };

  function start() {
    var host;
    if (config.mount) {
      host = document.querySelector(config.mount);
      if (!host) { if (window.console) console.error("csreply widget: no element matches " + config.mount); return; }
    } else {
      host = document.createElement("div");
      host.className = "csreply-widget-host";
      document.body.appendChild(host);
    }
    host.csreplyWidget = new Widget(host, config);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
